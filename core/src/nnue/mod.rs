//! The network evaluation (NNUE): the quantised network the engine runs
//! and the one built into the binary. Training data and the trainer are
//! tools (`chuhe`'s `train` module).

pub mod aligned;
pub mod net;
pub mod simd;

use net::Network;
use once_cell::sync::Lazy;
use std::sync::Arc;

/// The shipped network, built into the binary so that `cargo run --release`
/// plays with it and nothing is downloaded (see nnue/README.md for how it
/// was trained).
pub const EMBEDDED_NAME: &str = "chuhe-6.nnue";
static EMBEDDED: &[u8] = include_bytes!("../../../nnue/chuhe-6.nnue");

static DEFAULT: Lazy<Option<Arc<Network>>> =
    Lazy::new(|| Network::from_bytes(EMBEDDED).ok().map(Arc::new));

/// The network the engine plays with unless told otherwise. None only if
/// the embedded file fails its own checks, which a test rules out.
pub fn default_network() -> Option<Arc<Network>> {
    DEFAULT.clone()
}

/// Why the embedded network would not load (for the test that guards it).
pub fn embedded_network_error() -> Option<net::NetError> {
    Network::from_bytes(EMBEDDED).err()
}

//! The network evaluation (NNUE): training data, the trainer, and the
//! quantised network the engine runs.

pub mod data;
pub mod net;
pub mod train;

use net::Network;
use std::sync::Arc;

/// The network the engine plays with unless told otherwise (None while no
/// network is shipped: the hand-crafted evaluation).
pub fn default_network() -> Option<Arc<Network>> {
    None
}

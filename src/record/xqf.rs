//! XQF, the format of XQStudio.

use super::{Game, RecordError};

/// Reads one XQF game (not yet implemented in this commit).
pub fn read(_bytes: &[u8]) -> Result<Game, RecordError> {
    Err(RecordError::new(0, "XQF reading is not implemented yet"))
}

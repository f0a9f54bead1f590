//! The network evaluation (NNUE): training data, the trainer, and the
//! quantised network the engine runs.

pub mod data;

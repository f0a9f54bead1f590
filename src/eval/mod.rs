//! Evaluation: one interface (`evaluate`) in front of the hand-crafted
//! evaluation now and the NNUE network later.

//! The board: small types, bitboards, attack tables, Zobrist keys, the
//! position with make/unmake, and legal move generation.

pub mod attacks;
pub mod bitboard;
pub mod movegen;
pub mod notation;
pub mod perft;
pub mod position;
pub mod types;
pub mod zobrist;

pub use bitboard::Bitboard;
pub use movegen::{GenType, MoveList, MAX_MOVES};
pub use position::{flip_colours_fen, CheckInfo, FenError, Position, Undo, START_FEN};
pub use types::{Color, File, Move, ParseError, Piece, PieceKind, Rank, Square};

//! PGN as xiangqi programs write it: tags, moves in Chinese notation
//! (`炮二平五 马８进７`), WXF (`C2.5`) or ICCS (`h2e2`, `H2-E2`), comments in
//! braces or after `;`, variations in parentheses, several games to a file,
//! in GBK or UTF-8. We write ICCS moves with the Chinese notation opening
//! each move's comment, as the match runner does.

use super::text::{self, Decoded};
use super::xqf::MAX_NESTING;
use super::{Game, MoveNode, RecordError};
use chuhe_core::board::notation::{chinese, parse_move};
use chuhe_core::board::{Color, Position};

/// One lexical piece of PGN text, with its byte offset in the decoded text.
#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Tag(String, String),
    Comment(String),
    Open,
    Close,
    Result(String),
    Word(String),
}

const RESULTS: [&str; 4] = ["1-0", "0-1", "1/2-1/2", "*"];

fn tokenize(text: &str) -> Result<Vec<(usize, Tok)>, (usize, String)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line_start = true;
    while i < bytes.len() {
        let c = text[i..].chars().next().unwrap_or(' ');
        let len = c.len_utf8();
        if c == '\n' {
            line_start = true;
            i += 1;
            continue;
        }
        if c.is_whitespace() {
            i += len;
            continue;
        }
        let at_line_start = std::mem::replace(&mut line_start, false);
        match c {
            // `%` at the start of a line escapes the line (PGN standard).
            '%' if at_line_start => i = line_end(text, i),
            ';' => {
                let end = line_end(text, i);
                out.push((i, Tok::Comment(trim_ascii(&text[i + 1..end]))));
                i = end;
            }
            '{' => {
                let end = text[i..]
                    .find('}')
                    .ok_or((i, "comment '{' is never closed".to_string()))?;
                out.push((i, Tok::Comment(trim_ascii(&text[i + 1..i + end]))));
                i += end + 1;
            }
            '(' => {
                out.push((i, Tok::Open));
                i += 1;
            }
            ')' => {
                out.push((i, Tok::Close));
                i += 1;
            }
            // A closing bracket reaching here opens nothing; the word rule
            // below stops at it, so it must be dealt with or never consumed.
            '}' => return Err((i, "'}' with no '{' before it".to_string())),
            ']' => return Err((i, "']' outside a tag".to_string())),
            '[' => {
                let (tok, end) = tag(text, i)?;
                out.push((i, tok));
                i = end;
            }
            _ => {
                let end = text[i..]
                    .find(|ch: char| ch.is_whitespace() || "{}()[];".contains(ch))
                    .map_or(text.len(), |e| i + e);
                let word = &text[i..end];
                if RESULTS.contains(&word) {
                    out.push((i, Tok::Result(word.to_string())));
                    // What follows a result up to the next game's tags is
                    // not PGN; programs put signatures and web addresses there.
                    i = text[end..].find("\n[").map_or(text.len(), |e| end + e + 1);
                    line_start = true;
                    continue;
                } else if !word.starts_with('$') {
                    // `$n` is a numeric annotation glyph: nothing to keep.
                    out.push((i, Tok::Word(word.to_string())));
                }
                i = end;
            }
        }
    }
    Ok(out)
}

/// Comments lose the ASCII spaces and line breaks around them, not the
/// full-width spaces Chinese texts indent paragraphs with.
fn trim_ascii(s: &str) -> String {
    s.trim_matches(|c: char| c.is_ascii_whitespace())
        .to_string()
}

fn line_end(text: &str, from: usize) -> usize {
    text[from..].find('\n').map_or(text.len(), |e| from + e)
}

/// `[Name "value"]`, with `\"` and `\\` escapes in the value.
fn tag(text: &str, start: usize) -> Result<(Tok, usize), (usize, String)> {
    let bad = |what: &str| (start, format!("bad tag: {what}"));
    let rest = &text[start + 1..];
    let name_len = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .ok_or_else(|| bad("cut short"))?;
    let name = &rest[..name_len];
    if name.is_empty() {
        return Err(bad("no name"));
    }
    let after = rest[name_len..].trim_start();
    let mut chars = after.char_indices();
    if chars.next().map(|(_, c)| c) != Some('"') {
        return Err(bad("value not in quotes"));
    }
    let mut value = String::new();
    let mut escaped = false;
    for (k, c) in chars {
        if escaped {
            value.push(c);
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == '"' {
            let tail = &after[k + 1..];
            let close = tail.find(']').ok_or_else(|| bad("no closing ']'"))?;
            if !tail[..close].trim().is_empty() {
                return Err(bad("text after the value"));
            }
            let end = text.len() - tail.len() + close + 1;
            return Ok((Tok::Tag(name.to_string(), value), end));
        } else if c == '\n' {
            break;
        } else {
            value.push(c);
        }
    }
    Err(bad("value never closed"))
}

/// Reads every game of a PGN file (GBK or UTF-8). A file with no game in it
/// is an error, as is any move that fits no legal move of its position.
pub fn read_bytes(bytes: &[u8]) -> Result<Vec<Game>, RecordError> {
    let decoded = text::decode(bytes);
    read_decoded(&decoded)
}

/// Reads every game of a PGN text.
pub fn read_str(text: &str) -> Result<Vec<Game>, RecordError> {
    read_bytes(text.as_bytes())
}

fn read_decoded(d: &Decoded) -> Result<Vec<Game>, RecordError> {
    let err = |(offset, what): (usize, String)| RecordError::new(d.file_offset(offset), what);
    let toks = tokenize(&d.text).map_err(err)?;
    let mut parser = Parser { toks: &toks, i: 0 };
    let mut games = Vec::new();
    while parser.i < toks.len() {
        games.push(parser.game().map_err(err)?);
    }
    if games.is_empty() {
        return Err(RecordError::new(0, "no game in the file"));
    }
    Ok(games)
}

struct Parser<'a> {
    toks: &'a [(usize, Tok)],
    i: usize,
}

type ParseResult<T> = Result<T, (usize, String)>;

impl Parser<'_> {
    fn offset(&self) -> usize {
        self.toks.get(self.i).map_or(usize::MAX, |t| t.0)
    }

    fn game(&mut self) -> ParseResult<Game> {
        let mut game = Game::default();
        while let Some((_, Tok::Tag(name, value))) = self.toks.get(self.i) {
            if name.eq_ignore_ascii_case("FEN") {
                game.start_fen = Some(value.clone());
            } else {
                game.set_tag(name, value);
            }
            self.i += 1;
        }
        let at = self.offset();
        let start = game
            .start_position()
            .map_err(|e| (at, format!("bad FEN tag: {e}")))?;
        // The standard position written out as a FEN tag is still the standard game.
        if start.fen() == Position::startpos().fen() {
            game.start_fen = None;
        }
        let (moves, lead, result) = self.line(&start, None, 0)?;
        game.moves = moves;
        game.comment = lead;
        if let Some(r) = result {
            if game.tag("Result").is_none_or(|t| t == "*" || t.is_empty()) {
                game.set_tag("Result", &r);
            }
        }
        Ok(game)
    }

    /// Reads one line of moves from `start` up to its end: `)` when `open`
    /// (the offset of its `(`) is set, otherwise the game's result, the next
    /// game's tags or the end of the text. Returns the moves, the comment
    /// before the first move and the result token.
    fn line(
        &mut self,
        start: &Position,
        open: Option<usize>,
        depth: usize,
    ) -> ParseResult<(Vec<MoveNode>, Option<String>, Option<String>)> {
        if depth > MAX_NESTING {
            let at = open.unwrap_or(0);
            return Err((
                at,
                format!("variations nested more than {MAX_NESTING} deep"),
            ));
        }
        let mut nodes: Vec<MoveNode> = Vec::new();
        let mut lead: Option<String> = None;
        let mut pos = start.clone();
        let mut before = start.clone();
        // Whether the last move was written in ICCS: its comment may then
        // open with the Chinese notation, which we drop as redundant.
        let mut last_iccs = false;
        while let Some((at, tok)) = self.toks.get(self.i) {
            let at = *at;
            match tok {
                Tok::Comment(c) => {
                    self.i += 1;
                    let mut c = c.as_str();
                    match nodes.last_mut() {
                        None => append(&mut lead, c),
                        Some(node) => {
                            if last_iccs {
                                c = strip_notation(&before, node, c);
                            }
                            append(&mut node.comment, c);
                        }
                    }
                }
                Tok::Open => {
                    self.i += 1;
                    if nodes.is_empty() {
                        return Err((at, "variation '(' before any move".to_string()));
                    }
                    let (mut var, var_lead, _) = self.line(&before, Some(at), depth + 1)?;
                    if let Some(first) = var.first_mut() {
                        if let Some(l) = var_lead {
                            // No slot for a comment before a variation's first
                            // move: it goes in front of that move's comment.
                            let after = first.comment.take();
                            first.comment = Some(l);
                            if let Some(a) = after {
                                append(&mut first.comment, &a);
                            }
                        }
                        if let Some(node) = nodes.last_mut() {
                            node.variations.push(var);
                        }
                    }
                    last_iccs = false;
                }
                Tok::Close => {
                    if open.is_none() {
                        return Err((at, "')' closes no variation".to_string()));
                    }
                    self.i += 1;
                    return Ok((nodes, lead, None));
                }
                Tok::Result(r) => {
                    if let Some(o) = open {
                        return Err((o, format!("variation '(' not closed before result {r}")));
                    }
                    self.i += 1;
                    return Ok((nodes, lead, Some(r.clone())));
                }
                Tok::Tag(..) => {
                    if let Some(o) = open {
                        return Err((o, "variation '(' not closed before the next game".into()));
                    }
                    return Ok((nodes, lead, None));
                }
                Tok::Word(w) => {
                    self.i += 1;
                    let text = strip_move_number(w);
                    if text.is_empty() {
                        continue;
                    }
                    let mv = parse_move(&pos, text).map_err(|e| {
                        let ply = nodes.len() + 1;
                        (at, format!("move {ply} of the line: {e}"))
                    })?;
                    last_iccs = text.is_ascii() && text.len() >= 4 && {
                        let b = text.as_bytes();
                        b[1].is_ascii_digit() && b[b.len() - 2].is_ascii_alphabetic()
                    };
                    before = pos.clone();
                    pos.make_move(mv);
                    // Reading needs legality, not history; a history kept
                    // would make each clone above cost the game's length so
                    // far, and a long game quadratic time.
                    pos.clear_history();
                    nodes.push(MoveNode::new(mv));
                }
            }
        }
        if let Some(o) = open {
            return Err((o, "variation '(' not closed at the end of the file".into()));
        }
        Ok((nodes, lead, None))
    }
}

fn append(slot: &mut Option<String>, text: &str) {
    if text.is_empty() {
        return;
    }
    match slot {
        Some(s) => {
            s.push(' ');
            s.push_str(text);
        }
        None => *slot = Some(text.to_string()),
    }
}

/// A comment that opens with the Chinese notation of the move it follows
/// (as we and the match runner write ICCS records), without that notation.
fn strip_notation<'c>(before: &Position, node: &MoveNode, comment: &'c str) -> &'c str {
    if node.comment.is_some() {
        return comment;
    }
    match chinese(before, node.mv) {
        Ok(n) => match comment.strip_prefix(n.as_str()) {
            Some("") => "",
            Some(rest) if rest.starts_with(|c: char| c.is_ascii_whitespace()) => &rest[1..],
            _ => comment,
        },
        Err(_) => comment,
    }
}

/// `12.`, `12...`, `12.炮二平五` and `…` lose their move number.
fn strip_move_number(word: &str) -> &str {
    let digits = word.trim_start_matches(|c: char| c.is_ascii_digit());
    let rest = if digits.len() < word.len() && digits.starts_with(['.', '、', '。']) {
        digits.trim_start_matches(['.', '、', '。'])
    } else {
        word
    };
    rest.trim_start_matches(['.', '…'])
}

/// A tag value with `\` and `"` escaped.
pub fn escape_tag(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Joins movetext tokens with spaces, breaking lines at about 80 columns
/// without splitting a token.
pub fn wrap_tokens<S: AsRef<str>>(tokens: &[S]) -> String {
    let mut out = String::new();
    let mut line_len = 0;
    for t in tokens {
        let t = t.as_ref();
        let w = t.chars().count();
        if line_len > 0 && line_len + 1 + w > 80 {
            out.push('\n');
            line_len = 0;
        } else if line_len > 0 {
            out.push(' ');
            line_len += 1;
        }
        out.push_str(t);
        line_len += w;
    }
    out
}

/// A comment in braces; a `}` inside would end it early, so it is written
/// full-width.
fn brace(text: &str) -> String {
    format!("{{{}}}", text.replace('}', "｝"))
}

/// Writes games as PGN (UTF-8): the game's tags in their order with the
/// start position as a `FEN` tag, ICCS moves each followed by a comment that
/// opens with the move in Chinese notation, variations in parentheses.
pub fn write(games: &[Game]) -> String {
    games.iter().map(write_game).collect()
}

/// One game as PGN text, ending with a blank line.
pub fn write_game(game: &Game) -> String {
    let mut out = String::new();
    let mut has_result = false;
    for (name, value) in &game.tags {
        if name.eq_ignore_ascii_case("FEN") {
            continue;
        }
        has_result |= name == "Result";
        out.push_str(&format!("[{name} \"{}\"]\n", escape_tag(value)));
    }
    if !has_result {
        out.push_str("[Result \"*\"]\n");
    }
    if let Some(fen) = &game.start_fen {
        out.push_str(&format!("[FEN \"{}\"]\n", escape_tag(fen)));
    }
    out.push('\n');
    let mut tokens = Vec::new();
    if let Some(c) = &game.comment {
        tokens.push(brace(c));
    }
    // A game whose FEN does not parse is written without its moves'
    // notation rather than not at all.
    match game.start_position() {
        Ok(pos) => line_tokens(&pos, &game.moves, &mut tokens),
        Err(_) => tokens.extend(game.moves.iter().map(|n| n.mv.to_string())),
    }
    // The movetext ends with a result token; a Result tag holding anything
    // else (from a damaged file) would be read back as a move.
    let result = game.tag("Result").filter(|r| RESULTS.contains(r));
    tokens.push(result.unwrap_or("*").to_string());
    out.push_str(&wrap_tokens(&tokens));
    out.push_str("\n\n");
    out
}

fn line_tokens(start: &Position, line: &[MoveNode], tokens: &mut Vec<String>) {
    let mut pos = start.clone();
    let mut need_number = true;
    for node in line {
        let black = pos.side_to_move() == Color::Black;
        let number = pos.fullmove_number().max(1);
        if !black {
            tokens.push(format!("{number}."));
        } else if need_number {
            tokens.push(format!("{number}..."));
        }
        tokens.push(node.mv.to_string());
        let mut comment = chinese(&pos, node.mv).unwrap_or_default();
        if let Some(c) = &node.comment {
            if !comment.is_empty() {
                comment.push(' ');
            }
            comment.push_str(c);
        }
        if !comment.is_empty() {
            tokens.push(brace(&comment));
        }
        for var in &node.variations {
            let mut sub = Vec::new();
            line_tokens(&pos, var, &mut sub);
            // Parentheses stick to the first and last token of the variation.
            if let Some(first) = sub.first_mut() {
                first.insert(0, '(');
            }
            if let Some(last) = sub.last_mut() {
                last.push(')');
            }
            tokens.extend(sub);
        }
        need_number = !node.variations.is_empty();
        if !pos.is_legal(node.mv) {
            // An illegal move ends what can be written with notation.
            return;
        }
        pos.make_move(node.mv);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_numbers() {
        assert_eq!(strip_move_number("12."), "");
        assert_eq!(strip_move_number("1..."), "");
        assert_eq!(strip_move_number("3.炮二平五"), "炮二平五");
        assert_eq!(strip_move_number("h2e2"), "h2e2");
        assert_eq!(strip_move_number("C2.5"), "C2.5");
    }

    #[test]
    fn tags_and_escapes() {
        let t = tokenize(r#"[Red "A \"B\" \\ C"] 1. h2e2"#).unwrap();
        assert_eq!(t[0].1, Tok::Tag("Red".into(), r#"A "B" \ C"#.into()));
        assert!(tokenize("[Red \"x").is_err());
        assert!(tokenize("{never closed").is_err());
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let mut text = String::from("1. h2e2 h9g7 ");
        for _ in 0..10_000 {
            text.push_str("(h9g7 ");
        }
        let e = read_str(&text).unwrap_err();
        assert!(e.what.contains("nested"), "{e}");
    }
}

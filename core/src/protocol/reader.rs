//! Reading input lines: raw bytes, any line ending, any encoding, any length,
//! on a thread of its own so the engine keeps listening while it thinks.

use std::io::{BufRead, ErrorKind};

/// Lines longer than this are dropped (and reported): no command needs it,
/// while a `position` with a few thousand moves stays well below it.
pub const MAX_LINE: usize = 256 * 1024;

/// One unit of input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// A line, with its ending removed and bytes that are not UTF-8 replaced.
    Line(String),
    /// A line over `MAX_LINE` bytes, dropped; its length in bytes.
    TooLong(usize),
    /// The input is closed.
    Eof,
}

/// Reads the next line from `input`, keeping at most `MAX_LINE` bytes of it.
/// Read errors other than an interruption count as the end of input.
pub fn next_line(input: &mut dyn BufRead) -> Input {
    let mut line = Vec::new();
    let mut total = 0usize;
    let mut seen_any = false;
    loop {
        let (consumed, done) = match input.fill_buf() {
            Ok([]) => break,
            Ok(buf) => {
                seen_any = true;
                match buf.iter().position(|&b| b == b'\n') {
                    Some(i) => {
                        keep(&mut line, &buf[..i]);
                        (i + 1, true)
                    }
                    None => {
                        keep(&mut line, buf);
                        (buf.len(), false)
                    }
                }
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        input.consume(consumed);
        total = total.saturating_add(consumed);
        if done {
            break;
        }
    }
    if !seen_any {
        return Input::Eof;
    }
    if total > MAX_LINE {
        return Input::TooLong(total);
    }
    while matches!(line.last(), Some(b'\r') | Some(b'\n')) {
        line.pop();
    }
    Input::Line(String::from_utf8_lossy(&line).into_owned())
}

fn keep(line: &mut Vec<u8>, bytes: &[u8]) {
    let room = (MAX_LINE + 1).saturating_sub(line.len());
    line.extend_from_slice(&bytes[..bytes.len().min(room)]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn lines(bytes: &[u8]) -> Vec<Input> {
        let mut cur = Cursor::new(bytes.to_vec());
        let mut out = Vec::new();
        loop {
            let l = next_line(&mut cur);
            let end = l == Input::Eof;
            out.push(l);
            if end {
                return out;
            }
        }
    }

    #[test]
    fn endings_and_bad_bytes() {
        let got = lines(b"uci\r\n\nis\xffready\nlast");
        assert_eq!(
            got,
            vec![
                Input::Line("uci".into()),
                Input::Line(String::new()),
                Input::Line("is\u{fffd}ready".into()),
                Input::Line("last".into()),
                Input::Eof
            ]
        );
    }

    #[test]
    fn overlong_line_is_dropped_and_the_next_one_kept() {
        let mut bytes = vec![b'x'; MAX_LINE + 10];
        bytes.extend_from_slice(b"\nisready\n");
        let got = lines(&bytes);
        assert_eq!(got[0], Input::TooLong(MAX_LINE + 11));
        assert_eq!(got[1], Input::Line("isready".into()));
    }
}

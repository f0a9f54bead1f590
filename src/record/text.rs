//! Text encodings of record files. Chinese xiangqi programs write GBK (the
//! Windows code page 936), newer ones UTF-8; a file says neither, so we
//! decide by whether the bytes are valid UTF-8 — GBK text with Chinese in it
//! practically never is.

use encoding_rs::GB18030;

/// The encoding a text was found to be in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    /// GBK, decoded as its superset GB18030 so that no valid byte is lost.
    Gbk,
}

/// A decoded text and how to map its offsets back to the file's bytes.
#[derive(Clone, Debug)]
pub struct Decoded {
    pub text: String,
    pub encoding: Encoding,
    /// Bytes skipped at the start (a UTF-8 byte-order mark).
    pub skipped: usize,
}

impl Decoded {
    /// The byte offset in the original file of byte `offset` of `text`.
    pub fn file_offset(&self, offset: usize) -> usize {
        let offset = offset.min(self.text.len());
        // Offsets inside a character are rounded down to its start.
        let mut at = offset;
        while !self.text.is_char_boundary(at) {
            at -= 1;
        }
        match self.encoding {
            Encoding::Utf8 => self.skipped + at,
            Encoding::Gbk => self.skipped + GB18030.encode(&self.text[..at]).0.len(),
        }
    }
}

/// Decodes a text file: UTF-8 (with or without a byte-order mark) when the
/// bytes are valid UTF-8, otherwise GBK.
pub fn decode(bytes: &[u8]) -> Decoded {
    let (body, skipped) = match bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
        Some(rest) => (rest, 3),
        None => (bytes, 0),
    };
    match std::str::from_utf8(body) {
        Ok(s) => Decoded {
            text: s.to_string(),
            encoding: Encoding::Utf8,
            skipped,
        },
        Err(_) => Decoded {
            text: GB18030.decode_without_bom_handling(body).0.into_owned(),
            encoding: Encoding::Gbk,
            skipped,
        },
    }
}

/// Decodes a GBK string field (XQF headers and comments), stopping at a NUL.
pub fn decode_gbk(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    GB18030
        .decode_without_bom_handling(&bytes[..end])
        .0
        .into_owned()
}

/// Encodes text as GBK. It is GB18030 in fact, which agrees with GBK on every
/// GBK character and encodes the rest too, so no character is lost.
pub fn encode_gbk(text: &str) -> Vec<u8> {
    GB18030.encode(text).0.into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_and_gbk() {
        let d = decode("炮二平五".as_bytes());
        assert_eq!(d.encoding, Encoding::Utf8);
        assert_eq!(d.text, "炮二平五");
        let gbk = encode_gbk("[Event \"炮二平五\"]");
        let d = decode(&gbk);
        assert_eq!(d.encoding, Encoding::Gbk);
        assert_eq!(d.text, "[Event \"炮二平五\"]");
        // '炮' is 3 bytes in UTF-8 and 2 in GBK.
        assert_eq!(d.file_offset("[Event \"炮".len()), 10);
        let mut bom = vec![0xEF, 0xBB, 0xBF];
        bom.extend_from_slice(b"abc");
        let d = decode(&bom);
        assert_eq!(d.text, "abc");
        assert_eq!(d.file_offset(1), 4);
    }

    #[test]
    fn gbk_fields() {
        let mut b = encode_gbk("吕钦");
        b.extend_from_slice(&[0, 0, 7]);
        assert_eq!(decode_gbk(&b), "吕钦");
    }
}

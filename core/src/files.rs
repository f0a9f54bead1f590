//! Reading whole input files with a size limit. `std::fs::read` trusts the
//! file to end: given `/dev/zero`, `/dev/urandom` or an endless pipe it
//! fills memory until the process dies, and a file's metadata cannot warn
//! of that (devices and pipes report a length of 0).

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The bytes of the file at `path`, or an error if there are more than
/// `max` of them: whatever the file claims, no more than `max + 1` bytes
/// are read.
pub fn read_capped(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    let file = File::open(path)?;
    let too_large = || {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("larger than {max} bytes, more than this reader accepts"),
        )
    };
    let claimed = file.metadata().map(|m| m.len()).unwrap_or(0);
    if claimed > max {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(claimed as usize);
    file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(too_large());
    }
    Ok(bytes)
}

/// The same as UTF-8 text (an error if it is not).
pub fn read_text_capped(path: &Path, max: u64) -> io::Result<String> {
    String::from_utf8(read_capped(path, max)?)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endless_and_large_inputs_are_errors() {
        #[cfg(unix)]
        {
            let e = read_capped(Path::new("/dev/zero"), 1000).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidData);
            assert!(e.to_string().contains("larger than 1000 bytes"), "{e}");
        }
        let path = std::env::temp_dir().join(format!("chuhe-capped-{}", std::process::id()));
        std::fs::write(&path, [7u8; 100]).unwrap();
        assert_eq!(read_capped(&path, 100).unwrap(), [7u8; 100]);
        assert!(read_capped(&path, 99).is_err());
        let _ = std::fs::remove_file(&path);
        assert!(read_capped(Path::new("/nonexistent/file"), 10).is_err());
    }
}

//! The UCCI and UCI protocol loop on stdin/stdout.

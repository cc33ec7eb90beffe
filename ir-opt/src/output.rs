//! Standard output for results: a reader that stops early (`ir-opt ... |
//! head`) ends the run quietly, where `print!` would panic.

use std::io::{ErrorKind, Write};

/// Writes `args` to standard output. A closed pipe exits with success (the
/// reader has what it wanted); another write error exits with code 2.
pub fn write(args: std::fmt::Arguments<'_>) {
    let result = std::io::stdout().lock().write_fmt(args);
    match result {
        Ok(()) => {}
        Err(e) if e.kind() == ErrorKind::BrokenPipe => std::process::exit(0),
        Err(e) => {
            eprintln!("ir-opt: cannot write the output: {e}");
            std::process::exit(2);
        }
    }
}

/// `print!` through [`write`].
macro_rules! out {
    ($($arg:tt)*) => { $crate::output::write(format_args!($($arg)*)) };
}

/// `println!` through [`write`].
macro_rules! outln {
    () => { $crate::output::write(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::output::write(format_args!("{}\n", format_args!($($arg)*))) };
}

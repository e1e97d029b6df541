//! The `filsnark` command: argument parsing and output only; the work is in the library.
//!
//! A panic anywhere in the command (a bug, never the way a bad input is reported) ends it with
//! one `filsnark: error:` line and exit status 2, like every other failure
//! ([`filsnark::output::panics`]).
mod cli;

fn main() {
    filsnark::output::panics::install_hook();
    let code = match std::panic::catch_unwind(cli::run) {
        Ok(code) => code,
        Err(p) => {
            let msg = filsnark::output::panics::message(p.as_ref());
            eprintln!("filsnark: error: internal error ({msg}); {}", filsnark::output::panics::REPORT);
            2
        }
    };
    std::process::exit(code);
}

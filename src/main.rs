//! The `filsnark` command: argument parsing and output only; the work is in the library.
mod cli;

fn main() {
    std::process::exit(cli::run());
}

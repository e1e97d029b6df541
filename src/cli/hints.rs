//! Hints for command lines clap refuses. The common stumble is a flag given at the wrong level,
//! e.g. `filsnark --c1 c1.json -c 15 -j 10`: clap says only that `--c1` is unexpected there, so
//! the refusal is followed by the subcommands that do take the flag, found in the command tree
//! itself (hidden subcommands left out).
use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::Command;

/// The note to print after clap's refusal of an unknown argument, if some subcommand takes it:
/// "--c1 belongs to `prove porep` or `bench porep` (put it after the subcommand, …)".
pub fn misplaced_flag(root: &Command, err: &clap::Error) -> Option<String> {
    if err.kind() != ErrorKind::UnknownArgument {
        return None;
    }
    let given = match err.get(ContextKind::InvalidArg)? {
        ContextValue::String(s) => s.clone(),
        _ => return None,
    };
    let flag = flag_name(&given)?;
    let mut owners = Vec::new();
    for sub in root.get_subcommands().filter(|s| !s.is_hide_set()) {
        owners_of(sub, &flag, &mut Vec::new(), &mut owners);
    }
    if owners.is_empty() {
        return None;
    }
    let first = &owners[0];
    let shown = match &flag {
        Flag::Long(l) => format!("--{l}"),
        Flag::Short(c) => format!("-{c}"),
    };
    Some(format!(
        "{shown} belongs to {}: put it after the subcommand, e.g. `filsnark {first} {shown} …`",
        either(&owners)
    ))
}

/// A flag as clap names it: long without the dashes, or a short letter.
#[derive(Debug, PartialEq, Eq)]
enum Flag {
    Long(String),
    Short(char),
}

/// `--c1`, `--c1=x.json` and `-c` name a flag; `-c15` is the short flag with its value.
fn flag_name(arg: &str) -> Option<Flag> {
    if let Some(long) = arg.strip_prefix("--") {
        let name = long.split('=').next().unwrap_or(long);
        return (!name.is_empty()).then(|| Flag::Long(name.to_string()));
    }
    arg.strip_prefix('-').and_then(|s| s.chars().next()).map(Flag::Short)
}

/// Collects the paths (`prove porep`) of the subcommands under `cmd` (itself included) that
/// take `flag`.
fn owners_of(cmd: &Command, flag: &Flag, path: &mut Vec<String>, out: &mut Vec<String>) {
    path.push(cmd.get_name().to_string());
    let takes = cmd.get_arguments().filter(|a| !a.is_hide_set()).any(|a| match flag {
        Flag::Long(l) => {
            a.get_long() == Some(l.as_str()) || a.get_all_aliases().is_some_and(|v| v.contains(&l.as_str()))
        }
        Flag::Short(c) => a.get_short() == Some(*c) || a.get_all_short_aliases().is_some_and(|v| v.contains(c)),
    });
    if takes {
        out.push(path.join(" "));
    }
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        owners_of(sub, flag, path, out);
    }
    path.pop();
}

/// "`a`", "`a` or `b`", "`a`, `b` or `c`".
fn either(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| format!("`{s}`")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => quoted.join(""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> Command {
        let leaf = |name: &'static str, flags: &[&'static str]| {
            flags.iter().fold(Command::new(name), |c, f| c.arg(clap::Arg::new(*f).long(*f)))
        };
        Command::new("filsnark")
            .subcommand(Command::new("prove").subcommand(leaf("porep", &["c1", "out"])))
            .subcommand(
                Command::new("bench")
                    .subcommand(leaf("porep", &["c1", "json"]).arg(clap::Arg::new("jobs").short('j').long("jobs"))),
            )
            .subcommand(Command::new("secret").hide(true).subcommand(leaf("x", &["c1"])))
    }

    fn hint(args: &[&str]) -> Option<String> {
        let t = tree();
        let err = t.clone().try_get_matches_from(args).unwrap_err();
        misplaced_flag(&t, &err)
    }

    #[test]
    fn a_flag_at_the_top_names_its_subcommands() {
        let h = hint(&["filsnark", "--c1", "c1.json", "-j", "10"]).unwrap();
        assert_eq!(h, "--c1 belongs to `prove porep` or `bench porep`: put it after the subcommand, e.g. `filsnark prove porep --c1 …`");
        let h = hint(&["filsnark", "--c1=c1.json"]).unwrap();
        assert!(h.starts_with("--c1 belongs to `prove porep` or `bench porep`"), "{h}");
        let h = hint(&["filsnark", "-j", "10"]).unwrap();
        assert!(h.starts_with("-j belongs to `bench porep`"), "{h}");
        let h = hint(&["filsnark", "prove", "porep", "--json", "r.json"]).unwrap();
        assert!(h.starts_with("--json belongs to `bench porep`"), "{h}");
    }

    #[test]
    fn no_hint_for_a_flag_nobody_takes() {
        assert_eq!(hint(&["filsnark", "--nope"]), None);
        assert_eq!(hint(&["filsnark", "prove", "porep", "--frobnicate"]), None);
    }

    #[test]
    fn lists_read_naturally() {
        let s = |v: &[&str]| either(&v.iter().map(|x| x.to_string()).collect::<Vec<_>>());
        assert_eq!(s(&["a"]), "`a`");
        assert_eq!(s(&["a", "b", "c"]), "`a`, `b` or `c`");
    }
}

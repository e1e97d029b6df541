//! A seeded generate-and-mutate fuzzer for the parsers and validators that read files. Each
//! target starts from inputs a generator builds (valid ones, so that mutations reach deep into
//! the format), mutates them with byte-level and JSON-structure-aware mutators, and runs the
//! target on each; a panic or a broken property (e.g. an error that does not name the file) is
//! a failure that saves the input under `target/tmp/fuzz-crashes/` and names the seed.
//!
//! `write_seed` writes a generator's valid input as a seed of the coverage-guided fuzzer (fuzz/).
//!
//! Budget: each target runs its default number of executions (what CI runs), stopping early
//! at `FILSNARK_FUZZ_SECS` seconds (default 20). `FILSNARK_FUZZ_EXECS=N` sets the executions
//! of every target (a long run), `FILSNARK_FUZZ_SEED=N` the seed (default 1, so CI is
//! reproducible).
#![allow(dead_code)]
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;

pub type Rand = ChaCha8Rng;

fn env_u64(name: &str) -> Option<u64> {
    let v = std::env::var(name).ok()?;
    Some(v.trim().parse().unwrap_or_else(|_| panic!("{name}={v:?} is not a whole number")))
}

/// What one target's run did.
pub struct Report {
    pub execs: u64,
    pub accepted: u64,
    pub elapsed: Duration,
}

/// Runs `target` on `execs` inputs made by `input` (default `default_execs`, see the module
/// doc). `target` returns whether the input was accepted, or a broken property as `Err`.
pub fn run(
    name: &str,
    default_execs: u64,
    mut input: impl FnMut(&mut Rand, u64) -> Vec<u8>,
    mut target: impl FnMut(&[u8]) -> Result<bool, String>,
) -> Report {
    let execs = env_u64("FILSNARK_FUZZ_EXECS").unwrap_or(default_execs);
    let cap = Duration::from_secs(env_u64("FILSNARK_FUZZ_SECS").unwrap_or(20));
    let seed = env_u64("FILSNARK_FUZZ_SEED").unwrap_or(1);
    let mut rng = Rand::seed_from_u64(seed ^ fnv(name));
    let start = Instant::now();
    let mut report = Report { execs: 0, accepted: 0, elapsed: Duration::ZERO };
    for i in 0..execs {
        if i % 64 == 0 && start.elapsed() > cap {
            break;
        }
        let bytes = input(&mut rng, i);
        let outcome = catch_unwind(AssertUnwindSafe(|| target(&bytes)));
        let failure = match outcome {
            Ok(Ok(accepted)) => {
                report.accepted += u64::from(accepted);
                None
            }
            Ok(Err(broken)) => Some(broken),
            Err(p) => Some(format!("panic: {}", panic_text(p.as_ref()))),
        };
        if let Some(why) = failure {
            let saved = save_crash(name, seed, i, &bytes);
            panic!("fuzz target {name}, seed {seed}, execution {i}: {why}\ninput saved as {saved}");
        }
        report.execs += 1;
    }
    report.elapsed = start.elapsed();
    eprintln!(
        "fuzz {name}: {} executions in {:.1} s ({:.0}/s), {} accepted, seed {seed}",
        report.execs,
        report.elapsed.as_secs_f64(),
        report.execs as f64 / report.elapsed.as_secs_f64().max(1e-9),
        report.accepted
    );
    report
}

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .or_else(|| p.downcast_ref::<anyhow::Error>().map(|e| format!("{e:#}")))
        .unwrap_or_else(|| "a panic without a message".into())
}

fn save_crash(name: &str, seed: u64, i: u64, bytes: &[u8]) -> String {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz-crashes");
    let path = dir.join(format!("{name}-seed{seed}-exec{i}.bin"));
    let _ = std::fs::create_dir_all(&dir);
    match std::fs::write(&path, bytes) {
        Ok(()) => path.display().to_string(),
        Err(e) => format!("(not saved: {e})"),
    }
}

fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

/// Integers that break parsers: zero, one, the edges of u8/u32/u64 and just past them.
const INTERESTING_U32: [u32; 8] = [0, 1, 2, 0x7f, 0xff, 0x7fff_ffff, 0xffff_fffe, 0xffff_ffff];

/// Applies one to four byte-level mutations: bit flips, interesting bytes and big-endian u32s,
/// inserted, deleted, duplicated or truncated runs.
pub fn mutate_bytes(rng: &mut Rand, bytes: &mut Vec<u8>) {
    for _ in 0..rng.gen_range(1..=4) {
        let len = bytes.len();
        match rng.gen_range(0..8) {
            0 if len > 0 => {
                let i = rng.gen_range(0..len);
                bytes[i] ^= 1 << rng.gen_range(0..8);
            }
            1 if len > 0 => {
                let i = rng.gen_range(0..len);
                bytes[i] = [0, 0xff, 0x7f, 0x80, b'"', b'{', b'0', b'9'][rng.gen_range(0..8)];
            }
            2 if len >= 4 => {
                let i = rng.gen_range(0..=len - 4);
                let v = INTERESTING_U32[rng.gen_range(0..INTERESTING_U32.len())];
                bytes[i..i + 4].copy_from_slice(&v.to_be_bytes());
            }
            3 => {
                let i = rng.gen_range(0..=len);
                let n = rng.gen_range(1..=16);
                let ins: Vec<u8> = (0..n).map(|_| rng.gen()).collect();
                bytes.splice(i..i, ins);
            }
            4 if len > 0 => {
                let i = rng.gen_range(0..len);
                let n = rng.gen_range(1..=(len - i).min(64));
                bytes.drain(i..i + n);
            }
            5 if len > 0 => {
                let i = rng.gen_range(0..len);
                let n = rng.gen_range(1..=(len - i).min(64));
                let dup = bytes[i..i + n].to_vec();
                bytes.splice(i..i, dup);
            }
            6 if len > 0 => bytes.truncate(rng.gen_range(0..len)),
            _ if len > 0 => {
                let i = rng.gen_range(0..len);
                bytes[i] = rng.gen();
            }
            _ => bytes.push(rng.gen()),
        }
    }
}

/// Little-endian u64s that break binary decoders at a length or index: zero, small counts,
/// the edges of u32 and u64, and sizes no memory holds.
const INTERESTING_LE_U64: [u64; 10] = [0, 1, 2, 8, 0xff, 0x1_0000, 0xffff_ffff, 1 << 32, 1 << 48, u64::MAX];

/// Writes one to three interesting little-endian u64s (the length prefixes and indices of
/// serde's binary formats) at random offsets, 8-byte aligned half the time.
pub fn mutate_le_lengths(rng: &mut Rand, bytes: &mut [u8]) {
    if bytes.len() < 8 {
        return;
    }
    for _ in 0..rng.gen_range(1..=3) {
        let mut i = rng.gen_range(0..=bytes.len() - 8);
        if rng.gen_bool(0.5) {
            i &= !7;
        }
        let v = INTERESTING_LE_U64[rng.gen_range(0..INTERESTING_LE_U64.len())];
        bytes[i..i + 8].copy_from_slice(&v.to_le_bytes());
    }
}

/// Applies one to three structural mutations to a JSON value, each at a node reached by a
/// random descent: numbers set to edge values, strings cut or corrupted, array elements removed
/// or repeated, 32-byte arrays made non-canonical field elements, keys removed or added, values
/// replaced by another JSON type.
pub fn mutate_json(rng: &mut Rand, v: &mut Value) {
    for _ in 0..rng.gen_range(1..=3) {
        let node = descend(rng, v);
        mutate_node(rng, node);
    }
}

fn descend<'a>(rng: &mut Rand, mut v: &'a mut Value) -> &'a mut Value {
    loop {
        let len = match &*v {
            Value::Array(a) => a.len(),
            Value::Object(o) => o.len(),
            _ => return v,
        };
        if len == 0 || rng.gen_bool(0.12) {
            return v;
        }
        let i = rng.gen_range(0..len);
        v = match v {
            Value::Array(a) => &mut a[i],
            Value::Object(o) => o.values_mut().nth(i).expect("index below len"),
            _ => unreachable!("containers only"),
        };
    }
}

fn mutate_node(rng: &mut Rand, v: &mut Value) {
    if rng.gen_bool(0.1) {
        *v = other_type(rng);
        return;
    }
    match v {
        Value::Number(_) => {
            let edges: [Value; 11] = [
                0.into(),
                1.into(),
                255.into(),
                256.into(),
                (-1).into(),
                u32::MAX.into(),
                u64::MAX.into(),
                serde_json::json!(18446744073709551616.0),
                serde_json::json!(1.5),
                serde_json::json!(1e308),
                rng.gen::<u64>().into(),
            ];
            *v = edges[rng.gen_range(0..edges.len())].clone();
        }
        Value::String(s) => match rng.gen_range(0..5) {
            0 => s.clear(),
            1 => {
                let keep = rng.gen_range(0..=s.chars().count());
                *s = s.chars().take(keep).collect();
            }
            2 => s.push_str(["@", "=", "zz", "\u{e9}", " "][rng.gen_range(0..5)]),
            3 => *s = s.chars().rev().collect(),
            _ => {
                let mut b = std::mem::take(s).into_bytes();
                mutate_bytes(rng, &mut b);
                *s = String::from_utf8_lossy(&b).into_owned();
            }
        },
        Value::Array(a) => {
            let is_bytes32 = a.len() == 32 && a.iter().all(Value::is_u64);
            match rng.gen_range(0..6) {
                0 if is_bytes32 => *a = vec![255.into(); 32],
                1 if is_bytes32 => a[31] = rng.gen_range(0x74..=0xffu64).into(),
                2 => {
                    a.pop();
                }
                3 if !a.is_empty() => {
                    let i = rng.gen_range(0..a.len());
                    let x = a[i].clone();
                    a.insert(i, x);
                }
                4 if a.len() > 1 => {
                    let (i, j) = (rng.gen_range(0..a.len()), rng.gen_range(0..a.len()));
                    a.swap(i, j);
                }
                _ => a.clear(),
            }
        }
        Value::Object(o) => match rng.gen_range(0..3) {
            0 if !o.is_empty() => {
                let k = o.keys().nth(rng.gen_range(0..o.len())).cloned().expect("index below len");
                o.remove(&k);
            }
            1 => {
                o.insert("Unexpected".into(), 1.into());
            }
            _ => *v = other_type(rng),
        },
        Value::Bool(b) => *b = !*b,
        Value::Null => *v = other_type(rng),
    }
}

fn other_type(rng: &mut Rand) -> Value {
    match rng.gen_range(0..6) {
        0 => Value::Null,
        1 => true.into(),
        2 => "x".into(),
        3 => (-7).into(),
        4 => Value::Array(vec![]),
        _ => Value::Object(Default::default()),
    }
}

/// A scratch file for targets that read a path: written each execution, in memory where the
/// system has a tmpfs.
pub struct Scratch {
    _dir: tempfile::TempDir,
    pub path: std::path::PathBuf,
}

impl Scratch {
    pub fn new(name: &str) -> Self {
        let shm = std::path::Path::new("/dev/shm");
        let dir = if shm.is_dir() { tempfile::tempdir_in(shm) } else { tempfile::tempdir() }.expect("a temp dir");
        let path = dir.path().join(name);
        Scratch { _dir: dir, path }
    }

    pub fn write(&self, bytes: &[u8]) {
        std::fs::write(&self.path, bytes).expect("write the scratch file");
    }
}

/// Writes one seed input of the coverage-guided fuzzer: `<corpus>/<target>/<name>`, where
/// `<corpus>` is `FILSNARK_FUZZ_CORPUS` (default `fuzz/corpus` of the repository).
pub fn write_seed(target: &str, name: &str, bytes: &[u8]) {
    let corpus = std::env::var_os("FILSNARK_FUZZ_CORPUS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus"));
    let dir = corpus.join(target);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    eprintln!("wrote {} ({} bytes)", path.display(), bytes.len());
}

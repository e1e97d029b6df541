//! The two-lock pipeline and `filsnark bench porep` on 2KiB sectors (CPU backend): proofs that
//! verify, the JSON report against its documented schema, the SVG timeline, the memory budget
//! (a clear error below one partition; peak RSS within it under -c 15 -j 10), no deadlock, and
//! no partial proof or temp file after Ctrl-C. Also `bench cpu` at a small size (both paths
//! agree, both rows printed).
mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use common::{filsnark, params_dir, path_str, stderr};
use serde_json::Value;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("params/fixtures/c1-2kib-t01000-s1.json")
}

fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_filsnark"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run filsnark")
}

/// Waits for `child` at most `limit`; a run that takes longer is killed and fails the test
/// (this is how a deadlock shows).
fn wait_within(mut child: Child, limit: Duration, what: &str) -> (ExitStatus, String, String) {
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let t_out = std::thread::spawn(move || {
        let mut s = String::new();
        out.read_to_string(&mut s).ok();
        s
    });
    let t_err = std::thread::spawn(move || {
        let mut s = String::new();
        err.read_to_string(&mut s).ok();
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if start.elapsed() > limit {
            child.kill().ok();
            child.wait().ok();
            panic!("{what}: still running after {limit:?} (deadlock?)");
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    (status, t_out.join().unwrap(), t_err.join().unwrap())
}

fn bench_args<'a>(extra: &[&'a str], params: &'a str, c1: &'a str) -> Vec<&'a str> {
    let mut a = vec!["bench", "porep", "--c1", c1, "--params-dir", params];
    a.extend_from_slice(extra);
    a
}

fn verify_proof(proof: &Path) {
    let params = params_dir();
    let o = filsnark(&[
        "verify",
        "porep",
        "--c1",
        path_str(&fixture()),
        "--params-dir",
        path_str(&params),
        "--proof",
        path_str(proof),
    ]);
    assert!(o.status.success(), "{} does not verify: {}", proof.display(), stderr(&o));
}

/// Field paths of the table in docs/bench-json.md: `a.b`, `a[].b`, `summary.*.mean`.
fn documented_fields() -> Vec<String> {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/bench-json.md")).unwrap();
    let fields: Vec<String> = doc
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split('`').next())
        .map(str::to_string)
        .collect();
    assert!(fields.len() > 50, "the field table of docs/bench-json.md was not found");
    fields
}

/// Every value at a documented path; panics when the path is missing anywhere.
fn resolve<'a>(root: &'a Value, path: &str) -> Vec<&'a Value> {
    let mut at = vec![root];
    for seg in path.split('.') {
        let mut next = Vec::new();
        for v in at {
            if seg == "*" {
                let obj = v.as_object().unwrap_or_else(|| panic!("{path}: {seg} is not an object"));
                next.extend(obj.values());
            } else if let Some(name) = seg.strip_suffix("[]") {
                let arr = v.get(name).and_then(Value::as_array).unwrap_or_else(|| panic!("{path}: no array {name}"));
                assert!(!arr.is_empty(), "{path}: {name} is empty");
                next.extend(arr.iter());
            } else {
                next.push(v.get(seg).unwrap_or_else(|| panic!("the report lacks the documented field {path}")));
            }
        }
        at = next;
    }
    at
}

/// Every field path in a report, arrays written `[]`.
fn report_fields(v: &Value, prefix: &str, out: &mut BTreeSet<String>) {
    if let Value::Object(m) = v {
        for (k, x) in m {
            let p = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
            out.insert(p.clone());
            match x {
                Value::Array(a) if a.iter().any(Value::is_object) => {
                    for e in a {
                        report_fields(e, &format!("{p}[]"), out);
                    }
                }
                Value::Object(_) => report_fields(x, &p, out),
                _ => {}
            }
        }
    }
}

fn matches(doc: &str, field: &str) -> bool {
    let (d, f): (Vec<&str>, Vec<&str>) = (doc.split('.').collect(), field.split('.').collect());
    d.len() == f.len() && d.iter().zip(&f).all(|(a, b)| *a == "*" || a == b)
}

fn check_schema(report: &Value) {
    let doc = documented_fields();
    for f in &doc {
        resolve(report, f);
    }
    let mut seen = BTreeSet::new();
    report_fields(report, "", &mut seen);
    for f in &seen {
        assert!(doc.iter().any(|d| matches(d, f)), "the report has a field docs/bench-json.md does not document: {f}");
    }
    assert_eq!(report["schema"], "filsnark-bench-porep");
    assert_eq!(report["schema_version"], 2);
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap()
}

/// Most intervals [a, b) open at once.
fn max_overlap(iv: &[(f64, f64)]) -> usize {
    let mut ev: Vec<(f64, i32)> = iv.iter().flat_map(|&(a, b)| [(a, 1), (b, -1)]).collect();
    ev.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
    let (mut n, mut m) = (0i32, 0i32);
    for (_, d) in ev {
        n += d;
        m = m.max(n);
    }
    m as usize
}

/// Checks a report's partition records against the limits it reports.
fn check_limits(report: &Value) {
    let parts = report["partitions"].as_array().unwrap();
    let host = report["memory"]["host_permits"].as_u64().unwrap() as usize;
    let flight = report["memory"]["in_flight_max"].as_u64().unwrap() as usize;
    let synth: Vec<_> = parts.iter().map(|p| (f(&p["synth_start_s"]), f(&p["synth_end_s"]))).collect();
    let in_flight: Vec<_> = parts.iter().map(|p| (f(&p["picked_s"]), f(&p["device_end_s"]))).collect();
    assert!(max_overlap(&synth) <= host, "more syntheses at once than host permits ({host})");
    assert!(max_overlap(&in_flight) <= flight, "more partitions in flight than the budget allows ({flight})");
    for d in 0..report["devices"].as_array().unwrap().len() {
        let iv: Vec<_> = parts
            .iter()
            .filter(|p| p["device"].as_u64() == Some(d as u64))
            .map(|p| (f(&p["device_start_s"]), f(&p["device_end_s"])))
            .collect();
        assert!(max_overlap(&iv) <= 1, "device {d} proved two partitions at once");
    }
    for p in parts {
        let t =
            ["picked_s", "synth_start_s", "synth_end_s", "device_start_s", "device_end_s", "done_s"].map(|k| f(&p[k]));
        assert!(t.windows(2).all(|w| w[0] <= w[1]), "stages out of order: {p}");
    }
}

#[test]
fn bench_three_proofs_report_and_timeline() {
    let dir = tempfile::tempdir().unwrap();
    let (params, c1) = (params_dir(), fixture());
    let (json, svg, out) = (dir.path().join("r.json"), dir.path().join("t.svg"), dir.path().join("proofs"));
    let args = bench_args(
        &[
            "-j",
            "3",
            "-c",
            "2",
            "--seed",
            "7",
            "--json",
            path_str(&json),
            "--timeline",
            path_str(&svg),
            "--out-dir",
            path_str(&out),
        ],
        path_str(&params),
        path_str(&c1),
    );
    let (st, stdout, err) = wait_within(spawn(&args), Duration::from_secs(1800), "bench -j 3 -c 2");
    assert!(st.success(), "bench failed: {err}");
    assert!(stdout.contains("throughput:") && stdout.contains("all 3 proof(s) verified"), "{stdout}");
    assert!(!err.contains('\r'), "progress bars on a stderr that is not a terminal");

    // Three proofs, each verified by `filsnark verify`.
    for i in 0..3 {
        let p = out.join(format!("proof-{i:03}.bin"));
        assert_eq!(std::fs::metadata(&p).unwrap().len(), 192);
        verify_proof(&p);
    }
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 3, "stray files in the output directory");

    // The JSON: every documented field, nothing undocumented, coherent numbers.
    let report: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    check_schema(&report);
    assert_eq!(report["config"]["proofs"], 3);
    assert_eq!(report["config"]["concurrency"], 2);
    assert_eq!(report["memory"]["host_permits"], 2);
    assert_eq!(report["proofs"].as_array().unwrap().len(), 3);
    assert!(report["proofs"].as_array().unwrap().iter().all(|p| p["verified"] == true && p["bytes"] == 192));
    assert_eq!(report["partitions"].as_array().unwrap().len(), 3);
    let busy = f(&report["device_busy_fraction"]);
    assert!(busy > 0.0 && busy <= 1.0, "device busy {busy}");
    assert!(report["peak_rss_bytes"].as_u64().unwrap() > 0);
    let wall = f(&report["wall_s"]);
    assert!((f(&report["throughput_s_per_proof"]) - wall / 3.0).abs() < 1e-6);
    check_limits(&report);

    // The SVG: well-formed XML, one bar per stage per partition, matching the JSON.
    let text = std::fs::read_to_string(&svg).unwrap();
    let doc = roxmltree::Document::parse(&text).expect("the timeline is not well-formed XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let mut bars: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for n in doc.descendants().filter(|n| n.has_tag_name("rect")) {
        if n.attribute("class").is_some_and(|c| c.split(' ').any(|c| c == "bar")) {
            let key =
                (n.attribute("data-proof").unwrap().to_string(), n.attribute("data-partition").unwrap().to_string());
            bars.entry(key).or_default().push(n.attribute("data-stage").unwrap().to_string());
            assert!(n.attribute("width").unwrap().parse::<f64>().unwrap() >= 0.0);
        }
    }
    assert_eq!(bars.len(), 3, "one row per partition: {bars:?}");
    for (k, mut stages) in bars {
        stages.sort();
        assert_eq!(stages, ["device", "evaluation", "queue", "verify", "witness"], "bars of {k:?}");
    }
}

#[test]
fn a_budget_smaller_than_one_partition_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let (params, c1) = (params_dir(), fixture());
    let json = dir.path().join("r.json");
    let o = filsnark(&bench_args(
        &["-j", "2", "--mem-budget", "100MiB", "--json", path_str(&json)],
        path_str(&params),
        path_str(&c1),
    ));
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    for want in
        ["memory budget 100.00 MiB", "smaller than one partition", "2KiB partition needs 640.00 MiB", "--mem-budget"]
    {
        assert!(err.contains(want), "stderr lacks {want:?}: {err}");
    }
    assert!(!err.contains("panicked"), "{err}");
    assert!(!json.exists());

    // The same check guards `prove`.
    let proof = dir.path().join("p.proof");
    let o = filsnark(&[
        "prove",
        "porep",
        "--c1",
        path_str(&c1),
        "--params-dir",
        path_str(&params),
        "-o",
        path_str(&proof),
        "--mem-budget",
        "1GiB",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("memory budget 1.00 GiB"), "{}", stderr(&o));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "files left behind");
}

#[test]
fn fifteen_syntheses_ten_proofs_within_the_budget() {
    let dir = tempfile::tempdir().unwrap();
    let (params, c1) = (params_dir(), fixture());
    let json = dir.path().join("r.json");
    // 6 GiB: static 2.07 GiB (parameters 1.04, CPU device working memory 0.78, base 0.25) and
    // 640 MiB per partition allow 6 partitions in flight, so -c 15 is capped at 6 permits.
    let budget: u64 = 6 << 30;
    let args = bench_args(
        &["-j", "10", "-c", "15", "--mem-budget", "6GiB", "--json", path_str(&json)],
        path_str(&params),
        path_str(&c1),
    );
    let (st, _stdout, err) = wait_within(spawn(&args), Duration::from_secs(3600), "bench -j 10 -c 15");
    assert!(st.success(), "bench failed: {err}");
    let report: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(report["proofs"].as_array().unwrap().len(), 10);
    assert!(report["proofs"].as_array().unwrap().iter().all(|p| p["verified"] == true));
    assert_eq!(report["memory"]["budget_bytes"], budget);
    assert_eq!(report["memory"]["in_flight_max"], 6);
    assert_eq!(report["memory"]["host_permits"], 6);
    check_limits(&report);
    let rss = report["peak_rss_bytes"].as_u64().unwrap();
    assert!(rss > 0 && rss as f64 <= budget as f64 * 1.1, "peak RSS {rss} B exceeds the budget {budget} B + 10%");
    let busy = f(&report["device_busy_fraction"]);
    assert!(busy > 0.5, "the device idled: busy {busy}");
}

fn sigint(child: &Child) {
    let st = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(st.success());
}

fn wait_for(path: &Path, child: &mut Child, limit: Duration) {
    let start = Instant::now();
    while !path.exists() {
        assert!(child.try_wait().unwrap().is_none(), "the run ended before {} appeared", path.display());
        assert!(start.elapsed() < limit, "{} did not appear within {limit:?}", path.display());
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn ctrl_c_leaves_no_partial_proof() {
    let dir = tempfile::tempdir().unwrap();
    let (params, c1) = (params_dir(), fixture());

    // A bench interrupted after its first proof: the proofs written are whole and verify; no
    // temp files, no report.
    let out = dir.path().join("proofs");
    let json = dir.path().join("r.json");
    let args = bench_args(
        &["-j", "3", "-c", "1", "--out-dir", path_str(&out), "--json", path_str(&json)],
        path_str(&params),
        path_str(&c1),
    );
    let mut child = spawn(&args);
    wait_for(&out.join("proof-000.bin"), &mut child, Duration::from_secs(1200));
    sigint(&child);
    let (st, _, _) = wait_within(child, Duration::from_secs(60), "bench after SIGINT");
    assert!(!st.success(), "bench survived SIGINT");
    // filsnark's handler removes any temp file of a write in progress, then exits with 130.
    assert_eq!(st.code(), Some(130), "{st:?} (signal {:?})", st.signal());
    assert!(!json.exists(), "a report was written by an interrupted bench");
    for e in std::fs::read_dir(&out).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with("proof-") && name.ends_with(".bin"), "partial or temp file left: {name}");
        assert_eq!(std::fs::metadata(&p).unwrap().len(), 192, "{name}");
        verify_proof(&p);
    }

    // A prove interrupted while proving: no file at all.
    let pdir = dir.path().join("prove");
    std::fs::create_dir(&pdir).unwrap();
    let proof = pdir.join("p.proof");
    let child =
        spawn(&["prove", "porep", "--c1", path_str(&c1), "--params-dir", path_str(&params), "-o", path_str(&proof)]);
    std::thread::sleep(Duration::from_secs(3));
    sigint(&child);
    let (st, _, _) = wait_within(child, Duration::from_secs(60), "prove after SIGINT");
    assert_eq!(st.code(), Some(130), "{st:?}");
    assert_eq!(std::fs::read_dir(&pdir).unwrap().count(), 0, "files left behind by an interrupted prove");
}

/// `bench cpu` compares the AVX-512 and blst paths itself and fails where they differ.
#[test]
fn bench_cpu_rows_agree() {
    let (status, out, err) =
        wait_within(spawn(&["bench", "cpu", "--log", "12"]), Duration::from_secs(300), "bench cpu");
    assert!(status.success(), "bench cpu failed: {err}");
    for row in ["H polynomial 2^12", "G1 MSM 2^12"] {
        assert!(out.contains(row), "no '{row}' row in:\n{out}");
    }
}

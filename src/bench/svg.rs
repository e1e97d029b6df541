//! The timeline picture (`--timeline FILE.svg`), hand-written SVG.
//!
//! One row per partition, rows grouped by the device that proved them (a heading per device)
//! and ordered by device start within a group; time runs left to right in seconds from the
//! start of the pipeline. Each row has exactly one bar per stage ([`super::report::STAGES`]:
//! witness, evaluation (the two halves of the host stage), queue, device, verify), each a `<rect class="bar stage-NAME">` with
//! `data-proof`, `data-partition`, `data-device`, `data-stage`, `data-start-s`, `data-end-s`
//! and a `<title>` tooltip; a zero-length stage still has its bar (width 0).
use std::fmt::Write;

use super::report::{BenchReport, PartitionEntry, STAGES};

const LEFT: f64 = 150.0;
const PLOT_W: f64 = 1000.0;
const ROW_H: f64 = 14.0;
const BAR_H: f64 = 10.0;
const TOP: f64 = 60.0;

fn color(stage: &str) -> &'static str {
    match stage {
        "witness" => "#4e79a7",
        "evaluation" => "#76b7b2",
        "queue" => "#bab0ac",
        "device" => "#f28e2b",
        "verify" => "#59a14f",
        _ => "#000",
    }
}

fn span(p: &PartitionEntry, stage: &str) -> (f64, f64) {
    match stage {
        "witness" => (p.synth_start_s, p.synth_end_s - p.evaluation_s),
        "evaluation" => (p.synth_end_s - p.evaluation_s, p.synth_end_s),
        "queue" => (p.synth_end_s, p.device_start_s),
        "device" => (p.device_start_s, p.device_end_s),
        _ => (p.device_end_s, p.done_s),
    }
}

/// Escapes text for XML content and attribute values.
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&apos;")
}

/// A "nice" tick step for an axis `max` seconds long, about 10 ticks.
fn tick_step(max: f64) -> f64 {
    let raw = (max / 10.0).max(1e-3);
    let mag = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * mag).find(|s| *s >= raw).unwrap_or(10.0 * mag)
}

/// The SVG document for a report.
pub fn timeline(r: &BenchReport) -> String {
    let end = r.partitions.iter().map(|p| p.done_s).fold(r.wall_s, f64::max).max(1e-3);
    let x = |t: f64| LEFT + PLOT_W * t / end;
    let mut rows: Vec<(Option<usize>, Option<&PartitionEntry>)> = Vec::new();
    for d in 0..r.devices.len().max(1) {
        let mut mine: Vec<&PartitionEntry> = r.partitions.iter().filter(|p| p.device == d).collect();
        if mine.is_empty() {
            continue;
        }
        mine.sort_by(|a, b| a.device_start_s.total_cmp(&b.device_start_s));
        rows.push((Some(d), None));
        rows.extend(mine.into_iter().map(|p| (None, Some(p))));
    }
    let height = TOP + ROW_H * rows.len() as f64 + 40.0;
    let width = LEFT + PLOT_W + 20.0;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="sans-serif" font-size="10">"#
    );
    let _ = writeln!(
        s,
        r#"<title>{}</title>"#,
        esc(&format!(
            "filsnark bench porep: {} proofs, -c {}, {} s/proof, device busy {:.1}%",
            r.config.proofs,
            r.config.concurrency,
            (r.throughput_s_per_proof * 1000.0).round() / 1000.0,
            100.0 * r.device_busy_fraction
        ))
    );
    let _ = writeln!(s, r#"<rect x="0" y="0" width="{width:.0}" height="{height:.0}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="10" y="16" font-size="12">{}</text>"#,
        esc(&format!(
            "{} proof(s), -c {}, {} in flight, {} host permit(s); {:.3} s/proof; device busy {:.1}%; wall {:.3} s",
            r.config.proofs,
            r.config.concurrency,
            r.memory.in_flight_max,
            r.memory.host_permits,
            r.throughput_s_per_proof,
            100.0 * r.device_busy_fraction,
            r.wall_s
        ))
    );
    // Legend.
    for (i, st) in STAGES.iter().enumerate() {
        let lx = 10.0 + 110.0 * i as f64;
        let _ = writeln!(
            s,
            r#"<g class="legend"><rect x="{lx:.1}" y="26" width="12" height="10" fill="{}"/><text x="{:.1}" y="35">{st}</text></g>"#,
            color(st),
            lx + 16.0
        );
    }
    // Axis and grid.
    let step = tick_step(end);
    let bottom = TOP + ROW_H * rows.len() as f64;
    let mut t = 0.0;
    while t <= end + 1e-9 {
        let _ = writeln!(
            s,
            r##"<line class="grid" x1="{0:.2}" y1="{1:.1}" x2="{0:.2}" y2="{2:.1}" stroke="#ddd"/><text x="{0:.2}" y="{3:.1}" text-anchor="middle">{4}</text>"##,
            x(t),
            TOP - 6.0,
            bottom,
            bottom + 12.0,
            format_tick(t, step)
        );
        t += step;
    }
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">seconds since start</text>"#,
        LEFT + PLOT_W / 2.0,
        bottom + 26.0
    );
    // Rows.
    for (i, (heading, part)) in rows.iter().enumerate() {
        let y = TOP + ROW_H * i as f64;
        if let Some(d) = heading {
            let name = r.devices.get(*d).cloned().unwrap_or_else(|| format!("device {d}"));
            let _ = writeln!(
                s,
                r#"<text class="device" x="4" y="{:.1}" font-weight="bold">{}</text>"#,
                y + BAR_H,
                esc(&name)
            );
            continue;
        }
        let p = part.expect("a partition row");
        let _ = writeln!(s, r#"<text x="14" y="{:.1}">proof {} part {}</text>"#, y + BAR_H, p.proof, p.partition);
        for st in STAGES {
            let (a, b) = span(p, st);
            let _ = writeln!(
                s,
                r#"<rect class="bar stage-{st}" data-proof="{}" data-partition="{}" data-device="{}" data-stage="{st}" data-start-s="{a:.6}" data-end-s="{b:.6}" x="{:.2}" y="{:.1}" width="{:.2}" height="{BAR_H}" fill="{}"><title>{}</title></rect>"#,
                p.proof,
                p.partition,
                p.device,
                x(a),
                y + (ROW_H - BAR_H) / 2.0,
                (x(b) - x(a)).max(0.0),
                color(st),
                esc(&format!("proof {} partition {}: {st} {:.3} s ({a:.3}–{b:.3} s)", p.proof, p.partition, b - a))
            );
        }
    }
    s.push_str("</svg>\n");
    s
}

fn format_tick(t: f64, step: f64) -> String {
    if step >= 1.0 {
        format!("{t:.0}")
    } else if step >= 0.1 {
        format!("{t:.1}")
    } else {
        format!("{t:.3}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        assert_eq!(esc(r#"<a & "b">"#), "&lt;a &amp; &quot;b&quot;&gt;");
    }

    #[test]
    fn ticks() {
        assert_eq!(tick_step(100.0), 10.0);
        assert_eq!(tick_step(35.0), 5.0);
        assert_eq!(tick_step(1.0), 0.1);
    }
}

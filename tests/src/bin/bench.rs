//! Benchmarks, run side by side with httpd's own configuration check.
//!
//! `cargo run --release -p apache-lsp-e2e --bin bench -- [parse|check] [--vhosts N]... [--runs R]`
//! `cargo run --release -p apache-lsp-e2e --bin bench -- lsp [--edits N] [--hovers N]` (see [`lsp`])
//!
//! It lives beside the end-to-end tests because it drives the real binary as they do (the
//! server through their stdio client); the `apache-lsp` binary is built in the same profile.
//!
//! Trees come from `../shared/bench/gen_config.py` (seeded, so figures compare
//! across runs). Nothing here asserts a time: it prints figures and ratios.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

#[path = "bench/lsp.rs"]
mod lsp;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mode = args.first().cloned().unwrap_or_else(|| "check".into());
    let mut vhosts = Vec::new();
    let mut runs = 5;
    let (mut edits, mut hovers) = (100, 100);
    let mut it = args.iter().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--vhosts" => vhosts.push(it.next().and_then(|v| v.parse().ok()).expect("--vhosts N")),
            "--runs" => runs = it.next().and_then(|v| v.parse().ok()).expect("--runs R"),
            "--edits" => edits = it.next().and_then(|v| v.parse().ok()).expect("--edits N"),
            "--hovers" => hovers = it.next().and_then(|v| v.parse().ok()).expect("--hovers N"),
            other => panic!("unknown argument {other}"),
        }
    }
    if vhosts.is_empty() {
        vhosts = if mode == "parse" { vec![10_000] } else { vec![100, 1_000, 10_000] };
    }
    let gen = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/bench/gen_config.py");
    if !gen.exists() {
        eprintln!("note: {} is missing (../shared is not beside the project); nothing to measure", gen.display());
        return;
    }
    println!(
        "machine: {} cores ({}); {}",
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        cpu_model(),
        uname()
    );
    if mode == "lsp" {
        let exe = apache_lsp_e2e::lsp::server_binary();
        lsp::run(&exe, &|n| tree(&gen, n), edits, hovers);
        return;
    }
    for n in vhosts {
        let dir = tree(&gen, n);
        // The generated configuration names these run-time directories; apache2 -t
        // refuses to check a tree whose DefaultRuntimeDir does not exist.
        for d in ["/tmp/apbench-run", "/tmp/apbench-logs"] {
            let _ = std::fs::create_dir_all(d);
        }
        if Path::new("/usr/sbin/apache2").exists() {
            let ok = Command::new("/usr/sbin/apache2")
                .arg("-t")
                .arg("-f")
                .arg(dir.join("apache2.conf"))
                .output()
                .map(|o| o.status.success())
                .unwrap_or(false);
            if !ok {
                println!("warning: apache2 -t rejects the generated tree; its time is not comparable");
            }
        }
        let main = dir.join("apache2.conf");
        let (files, bytes) = tree_size(&dir);
        println!("\n== {n} vhosts: {files} files, {:.1} MB ==", bytes as f64 / 1e6);
        match mode.as_str() {
            "parse" => bench_parse(&dir, bytes, runs, &main),
            _ => bench_check(&dir, runs, &main),
        }
    }
}

/// The processor's model name, from /proc/cpuinfo.
fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

fn uname() -> String {
    Command::new("uname")
        .arg("-srm")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

fn tree(gen: &Path, n: usize) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("apache-lsp-bench-{n}"));
    if !dir.join("MANIFEST.json").exists() {
        let _ = std::fs::remove_dir_all(&dir);
        let st = Command::new("python3")
            .arg(gen)
            .args(["--vhosts", &n.to_string(), "--out"])
            .arg(&dir)
            .status()
            .expect("python3");
        assert!(st.success(), "gen_config.py failed");
    }
    dir
}

fn all_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            all_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "conf") {
            out.push(p);
        }
    }
}

fn tree_size(dir: &Path) -> (usize, u64) {
    let mut files = Vec::new();
    all_files(dir, &mut files);
    let bytes = files.iter().map(|f| f.metadata().map(|m| m.len()).unwrap_or(0)).sum();
    (files.len(), bytes)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// One run of a command: wall time, peak RSS in KiB (from wait4's rusage), success.
fn run_measured(cmd: &mut Command) -> (Duration, u64, bool) {
    let t = Instant::now();
    let child = cmd.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null()).spawn().expect("spawn");
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain data; wait4 fills it for the child we just spawned.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = t.elapsed();
    // The child is reaped: dropping the handle neither waits nor kills.
    drop(child);
    let ok = r == pid && libc::WIFEXITED(status) && libc::WEXITSTATUS(status) <= 1;
    (wall, usage.ru_maxrss.max(0) as u64, ok)
}

fn bench_parse(dir: &Path, bytes: u64, runs: usize, main: &Path) {
    let mut files = Vec::new();
    all_files(dir, &mut files);
    let texts: Vec<String> = files.iter().map(|f| std::fs::read_to_string(f).unwrap()).collect();
    let mut ours = Vec::new();
    let mut flat = Vec::new();
    let mut httpd = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        let mut errs = 0;
        for s in &texts {
            errs += apache_syntax::parse(s).errors.len();
        }
        ours.push(t.elapsed());
        assert_eq!(errs, 0);
        let t = Instant::now();
        let mut nodes = 0;
        for s in &texts {
            nodes += apache_syntax::parse_flat(s).nodes.len();
        }
        flat.push(t.elapsed());
        assert!(nodes > 0);
        if Path::new("/usr/sbin/apache2").exists() {
            let (d, _, _) = run_measured(Command::new("/usr/sbin/apache2").arg("-t").arg("-f").arg(main));
            httpd.push(d);
        }
    }
    let f = median(flat);
    println!(
        "flat parse, batch (1 thread):   {:>8.1} ms  {:>7.1} MB/s",
        f.as_secs_f64() * 1e3,
        bytes as f64 / 1e6 / f.as_secs_f64()
    );
    let o = median(ours);
    println!(
        "apache-syntax parse (1 thread): {:>8.1} ms  {:>7.1} MB/s",
        o.as_secs_f64() * 1e3,
        bytes as f64 / 1e6 / o.as_secs_f64()
    );
    if !httpd.is_empty() {
        let h = median(httpd);
        println!(
            "apache2 -t (whole check):       {:>8.1} ms  {:>7.1} MB/s",
            h.as_secs_f64() * 1e3,
            bytes as f64 / 1e6 / h.as_secs_f64()
        );
        println!("ratio apache2 -t / parse: {:.1}x", h.as_secs_f64() / o.as_secs_f64());
    } else {
        println!("apache2 is not installed: no comparison");
    }
}

/// Median wall time and the largest peak RSS over the runs of one contender.
#[derive(Default)]
struct Runs {
    wall: Vec<Duration>,
    rss_kib: u64,
    failed: usize,
}

impl Runs {
    fn add(&mut self, (wall, rss, ok): (Duration, u64, bool)) {
        self.wall.push(wall);
        self.rss_kib = self.rss_kib.max(rss);
        self.failed += usize::from(!ok);
    }
    fn median_ms(&self) -> f64 {
        median(self.wall.clone()).as_secs_f64() * 1e3
    }
    fn rss_mb(&self) -> f64 {
        self.rss_kib as f64 / 1024.0
    }
}

fn bench_check(dir: &Path, runs: usize, main: &Path) {
    let exe = apache_lsp_e2e::lsp::server_binary();
    let mut files = Vec::new();
    all_files(dir, &mut files);
    files.sort();
    let has_httpd = Path::new("/usr/sbin/apache2").exists();
    let (mut ours, mut httpd, mut cat) = (Runs::default(), Runs::default(), Runs::default());
    for i in 0..runs {
        // Alternate the order so that no contender always runs first on a warm cache.
        let mut order = vec![0, 1, 2];
        order.rotate_left(i % 3);
        for who in order {
            match who {
                0 => ours.add(run_measured(Command::new(&exe).arg("check").arg("--format").arg("json").arg(main))),
                1 if has_httpd => {
                    httpd.add(run_measured(Command::new("/usr/sbin/apache2").arg("-t").arg("-f").arg(main)))
                }
                2 => cat.add(run_measured(Command::new("cat").args(&files))),
                _ => {}
            }
        }
    }
    // The other floor: every file read once, by as many threads as there are cores, in this
    // process (no exec, no output); nothing that reads the tree can be faster.
    let read = (0..runs).map(|_| read_all_parallel(&files)).collect::<Vec<_>>();
    println!("{:<32} {:>12} {:>14}", "", "median wall", "peak RSS");
    let row = |name: &str, r: &Runs| {
        let note = if r.failed > 0 { format!("  ({} runs failed)", r.failed) } else { String::new() };
        println!("{name:<32} {:>9.1} ms {:>11.1} MB{note}", r.median_ms(), r.rss_mb());
    };
    row("apache-lsp check --format json", &ours);
    if has_httpd {
        row("apache2 -t", &httpd);
    }
    row("cat of the tree (floor)", &cat);
    let read = median(read).as_secs_f64() * 1e3;
    println!("{:<32} {read:>9.1} ms", "read, all cores (floor)");
    if has_httpd {
        println!(
            "check is {:.2}x faster than apache2 -t (target >= 10x); its peak RSS is {:.2} of httpd's (target <= 0.5)",
            httpd.median_ms() / ours.median_ms(),
            ours.rss_kib as f64 / httpd.rss_kib.max(1) as f64
        );
    } else {
        println!("apache2 is not installed: no comparison with httpd");
    }
    println!(
        "check takes {:.1}x the time of cat and {:.1}x that of the parallel read",
        ours.median_ms() / cat.median_ms().max(1e-3),
        ours.median_ms() / read.max(1e-3)
    );
    if has_httpd {
        println!(
            "10x apache2 -t is {:.1} ms: {:.1}x the parallel read",
            httpd.median_ms() / 10.0,
            httpd.median_ms() / 10.0 / read.max(1e-3)
        );
    }
}

/// Wall time to read every file once, split among one thread per core.
fn read_all_parallel(files: &[PathBuf]) -> Duration {
    let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let t = Instant::now();
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                let mut bytes = 0usize;
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(f) = files.get(i) else { break };
                    bytes += std::fs::read(f).map(|b| b.len()).unwrap_or(0);
                }
                std::hint::black_box(bytes)
            });
        }
    });
    t.elapsed()
}

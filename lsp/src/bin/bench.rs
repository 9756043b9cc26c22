//! Benchmarks, run side by side with httpd's own configuration check.
//!
//! `cargo run --release -p apache-lsp --bin bench -- [parse|check] [--vhosts N]... [--runs R]`
//!
//! Trees come from `../shared/bench/gen_config.py` (seeded, so figures compare
//! across runs). Nothing here asserts a time: it prints figures and ratios.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mode = args.first().cloned().unwrap_or_else(|| "check".into());
    let mut vhosts = Vec::new();
    let mut runs = 5;
    let mut it = args.iter().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--vhosts" => vhosts.push(it.next().and_then(|v| v.parse().ok()).expect("--vhosts N")),
            "--runs" => runs = it.next().and_then(|v| v.parse().ok()).expect("--runs R"),
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
    println!("machine: {} cores; {}", std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1), uname());
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

/// Wall time of one run of a command.
fn run_measured(cmd: &mut Command) -> (Duration, u64, bool) {
    let t = Instant::now();
    let out = cmd.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null()).status().expect("spawn");
    (t.elapsed(), 0, out.success())
}

fn bench_parse(dir: &Path, bytes: u64, runs: usize, main: &Path) {
    let mut files = Vec::new();
    all_files(dir, &mut files);
    let texts: Vec<String> = files.iter().map(|f| std::fs::read_to_string(f).unwrap()).collect();
    let mut ours = Vec::new();
    let mut httpd = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        let mut errs = 0;
        for s in &texts {
            errs += apache_syntax::parse(s).errors.len();
        }
        ours.push(t.elapsed());
        assert_eq!(errs, 0);
        if Path::new("/usr/sbin/apache2").exists() {
            let (d, _, _) = run_measured(Command::new("/usr/sbin/apache2").arg("-t").arg("-f").arg(main));
            httpd.push(d);
        }
    }
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

fn bench_check(dir: &Path, runs: usize, main: &Path) {
    let exe = std::env::current_exe().unwrap().with_file_name("apache-lsp");
    let mut ours = Vec::new();
    let mut httpd = Vec::new();
    let mut cat = Vec::new();
    let mut files = Vec::new();
    all_files(dir, &mut files);
    for _ in 0..runs {
        // Alternate the peers so that neither always runs on a warm cache.
        let (d, _, _) = run_measured(Command::new(&exe).arg("check").arg("--format").arg("json").arg(main));
        ours.push(d);
        if Path::new("/usr/sbin/apache2").exists() {
            let (d, _, _) = run_measured(Command::new("/usr/sbin/apache2").arg("-t").arg("-f").arg(main));
            httpd.push(d);
        }
        let (d, _, _) = run_measured(
            Command::new("sh")
                .arg("-c")
                .arg(format!("find {} -name '*.conf' -exec cat {{}} + > /dev/null", dir.display())),
        );
        cat.push(d);
    }
    let rss_ours = peak_rss(Command::new(&exe).arg("check").arg("--format").arg("json").arg(main));
    let o = median(ours);
    println!("apache-lsp check: {:>8.1} ms, peak RSS {:>7.1} MB", o.as_secs_f64() * 1e3, rss_ours as f64 / 1024.0);
    if !httpd.is_empty() {
        let rss_h = peak_rss(Command::new("/usr/sbin/apache2").arg("-t").arg("-f").arg(main));
        let h = median(httpd);
        println!("apache2 -t:       {:>8.1} ms, peak RSS {:>7.1} MB", h.as_secs_f64() * 1e3, rss_h as f64 / 1024.0);
        println!(
            "speed ratio (apache2 -t / check): {:.2}x; RSS ratio (check / apache2 -t): {:.2}",
            h.as_secs_f64() / o.as_secs_f64(),
            rss_ours as f64 / rss_h.max(1) as f64
        );
    }
    let c = median(cat);
    println!("cat of the tree (floor): {:>8.1} ms", c.as_secs_f64() * 1e3);
}

/// Peak RSS of one run, in KiB, read from /proc via a wrapper shell's wait4.
fn peak_rss(cmd: &mut Command) -> u64 {
    let prog = cmd.get_program().to_string_lossy().to_string();
    let args: Vec<String> = cmd.get_args().map(|a| format!("'{}'", a.to_string_lossy())).collect();
    // GNU time is not always installed; python's resource module is.
    let script = format!(
        "import resource,subprocess,sys; subprocess.run(['{}',{}],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)",
        prog,
        args.join(",")
    );
    Command::new("python3")
        .arg("-c")
        .arg(script)
        .output()
        .ok()
        .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse().ok())
        .unwrap_or(0)
}

//! End-to-end test support: a std-only static file server for `dist/` on
//! 127.0.0.1 and a headless Chromium driver.

pub mod webdriver;

/// How long a page test waits for the page to show what it expects.
pub const WAIT: std::time::Duration = std::time::Duration::from_secs(20);

/// The page's rule for days (app/src/fmt.rs): one decimal below 100.
#[must_use]
pub fn days(d: f64) -> String {
    if d < 100.0 {
        format!("{d:.1}")
    } else {
        format!("{d:.0}")
    }
}

/// Where a test saves its screenshot `name`.
#[must_use]
pub fn artifact(name: &str) -> PathBuf {
    root()
        .join("tests/e2e/artifacts")
        .join(format!("{name}.png"))
}

/// Opens the planner at `url` and waits until its table shows.
pub fn open(b: &webdriver::Browser, url: &str) {
    b.goto(url);
    b.wait(
        "return document.querySelector('[data-testid=plan-improved-gpus]')",
        WAIT,
    );
}

/// Sets an input's value as a user would and fires `event`.
pub fn set(b: &webdriver::Browser, testid: &str, value: &str, event: &str) {
    b.exec(
        "const e = document.querySelector(`[data-testid=\"${arguments[0]}\"]`);
         e.value = arguments[1];
         e.dispatchEvent(new Event(arguments[2], { bubbles: true }));",
        &[
            serde_json::json!(testid),
            serde_json::json!(value),
            serde_json::json!(event),
        ],
    );
}

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

/// A count as the page writes it (app/src/fmt.rs): thousands separators.
#[must_use]
pub fn count(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The workspace root.
#[must_use]
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The built page, `dist/`. Panics with instructions if it is missing.
#[must_use]
pub fn dist() -> PathBuf {
    let dist = root().join("dist");
    assert!(
        dist.join("index.html").exists(),
        "no dist/index.html: run `cargo xtask build` first"
    );
    dist
}

/// Serves `dir` on 127.0.0.1 (a free port) from a background thread, under
/// the URL prefix `prefix` (e.g. `/` or `/repo/`). Returns the base URL.
#[must_use]
pub fn serve(dir: PathBuf, prefix: &'static str) -> String {
    serve_controlled(dir, prefix).url
}

/// A test server whose network can be cut and whose files can be replaced.
pub struct Server {
    /// The base URL.
    pub url: String,
    /// While true, every connection is dropped unanswered: the network is off.
    pub offline: Arc<AtomicBool>,
    /// Files served instead of those on disk, by path below the prefix.
    pub overrides: Arc<Mutex<HashMap<String, Vec<u8>>>>,
}

/// As [`serve`], with control over the network and the files.
#[must_use]
pub fn serve_controlled(dir: PathBuf, prefix: &'static str) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    let addr: SocketAddr = listener.local_addr().expect("local address");
    let offline = Arc::new(AtomicBool::new(false));
    let overrides: Arc<Mutex<HashMap<String, Vec<u8>>>> = Arc::default();
    let (off, over) = (offline.clone(), overrides.clone());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            if off.load(Ordering::SeqCst) {
                drop(stream);
                continue;
            }
            let (dir, over) = (dir.clone(), over.clone());
            std::thread::spawn(move || {
                let _ = handle(stream, &dir, prefix, &over);
            });
        }
    });
    Server {
        url: format!("http://{addr}{prefix}"),
        offline,
        overrides,
    }
}

fn handle(
    mut stream: TcpStream,
    dir: &Path,
    prefix: &str,
    overrides: &Mutex<HashMap<String, Vec<u8>>>,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request = String::new();
    reader.read_line(&mut request)?;
    // Drain the headers.
    let mut line = String::new();
    while reader.read_line(&mut line)? > 2 {
        line.clear();
    }
    let target = request.split_whitespace().nth(1).unwrap_or("/");
    let path = target.split(['?', '#']).next().unwrap_or("/");
    let rel = path
        .strip_prefix(prefix)
        .map(|r| if r.is_empty() { "index.html" } else { r });
    let replaced = rel.and_then(|r| overrides.lock().ok()?.get(r).cloned());
    let file = rel.and_then(|rel| {
        let rel = Path::new(rel);
        // No `..`, no absolute paths: only files inside `dir`.
        rel.components()
            .all(|c| matches!(c, Component::Normal(_)))
            .then(|| dir.join(rel))
    });
    let found = match (replaced, file) {
        (Some(body), Some(f)) => Some((f, body)),
        (None, Some(f)) => std::fs::read(&f).ok().map(|body| (f, body)),
        _ => None,
    };
    match found {
        Some((f, body)) => {
            let kind = match f.extension().and_then(|e| e.to_str()) {
                Some("html") => "text/html; charset=utf-8",
                Some("js") => "text/javascript",
                Some("wasm") => "application/wasm",
                Some("css") => "text/css",
                Some("json" | "webmanifest") => "application/json",
                Some("svg") => "image/svg+xml",
                Some("png") => "image/png",
                _ => "application/octet-stream",
            };
            write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n",
                body.len()
            )?;
            stream.write_all(&body)
        }
        None => stream
            .write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"),
    }
}

/// Headless Chromium with the flags that work on these machines (no
/// sandbox as root, no background networking: only 127.0.0.1 is reachable).
#[must_use]
pub fn chromium() -> Command {
    let bin = std::env::var("PLAN3D_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let profile =
        std::env::temp_dir().join(format!("plan3d-chromium-{}-{nanos}", std::process::id()));
    let mut c = Command::new(bin);
    c.args([
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
        "--hide-scrollbars",
    ])
    .arg(format!("--user-data-dir={}", profile.display()));
    c
}

/// The page's DOM after its scripts (and wasm) have run.
#[must_use]
pub fn dump_dom(url: &str) -> String {
    let out = chromium()
        .args(["--virtual-time-budget=10000", "--dump-dom", url])
        .output()
        .expect("run chromium (`cargo xtask setup` installs it)");
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Saves a screenshot of `url` to `tests/e2e/artifacts/<name>.png`.
pub fn screenshot(url: &str, name: &str, width: u32, height: u32) -> PathBuf {
    let dir = root().join("tests/e2e/artifacts");
    std::fs::create_dir_all(&dir).expect("create artifacts dir");
    let path = dir.join(format!("{name}.png"));
    let out = chromium()
        .arg("--virtual-time-budget=10000")
        .arg(format!("--window-size={width},{height}"))
        .arg(format!("--screenshot={}", path.display()))
        .arg(url)
        .output()
        .expect("run chromium");
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    path
}

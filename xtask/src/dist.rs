//! What `cargo xtask build` leaves in `dist/` beside Trunk's output: the
//! service worker's asset list, the Content-Security-Policy, and the size
//! report of each wasm; and, in Trunk's post-build hook, the page's wasm
//! without the exports nothing calls.

use std::fs;
use std::path::Path;

use super::{cmd, output, root, Result};

/// The files of the page's build, as `./path`, sorted: the top folder's and
/// wasm-bindgen's `snippets/` (JavaScript the page's module imports), not
/// the JavaScript API's `api/`.
fn dist_files() -> Result<Vec<String>> {
    fn walk(dir: &Path, prefix: &str, v: &mut Vec<String>) -> Result {
        for e in fs::read_dir(dir).map_err(|e| e.to_string())?.flatten() {
            let Some(name) = e.file_name().to_str().map(str::to_string) else {
                continue;
            };
            let path = format!("{prefix}{name}");
            if e.path().is_file() {
                v.push(path);
            } else if e.path().is_dir() && (path == "./snippets" || path.starts_with("./snippets/"))
            {
                walk(&e.path(), &format!("{path}/"), v)?;
            }
        }
        Ok(())
    }
    let mut v = Vec::new();
    walk(&root().join("dist"), "./", &mut v)?;
    v.retain(|n| n != "./sw.js");
    v.sort();
    Ok(v)
}

/// FNV-1a, for a short version tag.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// Writes `dist/sw.js`: the template with this build's files, its cache
/// named after them (Trunk's file names carry content hashes, so a new
/// release gets a new cache and the old one is deleted on activation).
pub(super) fn service_worker() -> Result {
    let mut assets = vec!["./".to_string()];
    assets.extend(dist_files()?);
    let mut all = Vec::new();
    for a in &assets[1..] {
        all.extend(a.as_bytes());
        all.extend(fs::read(root().join("dist").join(&a[2..])).map_err(|e| e.to_string())?);
    }
    let list = format!(
        "[{}]",
        assets
            .iter()
            .map(|a| format!("\"{a}\""))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let template =
        fs::read_to_string(root().join("static/sw.template.js")).map_err(|e| e.to_string())?;
    let sw = template
        .replace("__VERSION__", &format!("{:016x}", fnv(&all)))
        .replace("__ASSETS__", &list);
    fs::write(root().join("dist/sw.js"), sw).map_err(|e| e.to_string())?;
    println!("sw.js: {} files precached", assets.len());
    Ok(())
}

/// SHA-256 in base64, by Node (already needed for wasm-opt).
fn sha256_base64(text: &str) -> Result<String> {
    use std::io::Write as _;
    let mut child = cmd("node")
        .args([
            "-e",
            "let d=[];process.stdin.on('data',c=>d.push(c)).on('end',()=>process.stdout.write(require('crypto').createHash('sha256').update(Buffer.concat(d)).digest('base64')))",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("node: {e}"))?;
    child
        .stdin
        .take()
        .ok_or("node stdin")?
        .write_all(text.as_bytes())
        .map_err(|e| e.to_string())?;
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Adds a Content-Security-Policy to `dist/index.html`: only the page's own
/// origin, wasm compilation, and Trunk's inline loader by its hash.
pub(super) fn content_security_policy() -> Result {
    let path = root().join("dist/index.html");
    let html = fs::read_to_string(&path).map_err(|e| e.to_string())?;
    let mut hashes = Vec::new();
    let mut rest = html.as_str();
    while let Some(i) = rest.find("<script") {
        let tag_end = rest[i..].find('>').ok_or("unclosed <script>")? + i;
        let close = rest[tag_end..].find("</script>").ok_or("no </script>")? + tag_end;
        if !rest[i..tag_end].contains("src=") {
            hashes.push(format!(
                "'sha256-{}'",
                sha256_base64(&rest[tag_end + 1..close])?
            ));
        }
        rest = &rest[close..];
    }
    // No inline style at all: the charts measure text with measureText
    // (app/src/backend.rs), not with plotters' styled <span>.
    let csp = format!(
        "default-src 'self'; script-src 'self' 'wasm-unsafe-eval' {}; style-src 'self'; \
         img-src 'self' data: blob:; connect-src 'self'; worker-src 'self'; manifest-src 'self'; \
         object-src 'none'; base-uri 'none'; form-action 'none'",
        hashes.join(" ")
    );
    let meta = format!("<meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\" />");
    let anchor = "<meta charset=\"utf-8\" />";
    if !html.contains(anchor) {
        return Err("index.html lost its <meta charset>".into());
    }
    let html = html.replacen(anchor, &format!("{anchor}\n    {meta}"), 1);
    fs::write(&path, html).map_err(|e| e.to_string())?;
    println!("CSP: {} inline script(s) allowed by hash", hashes.len());
    Ok(())
}

/// Prints the size of the wasm files in `dir`, raw and gzip.
pub(super) fn report_size(dist: &Path) -> Result {
    for entry in fs::read_dir(dist).map_err(|e| format!("{}: {e}", dist.display()))? {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.extension().is_some_and(|e| e == "wasm") {
            let raw = fs::metadata(&path).map_err(|e| e.to_string())?.len();
            let gz = output(
                "sh",
                &["-c", &format!("gzip -9c '{}' | wc -c", path.display())],
            )
            .and_then(|s| s.parse::<u64>().ok());
            match gz {
                Some(gz) => println!(
                    "{}: {} KB raw, {} KB gzip",
                    path.display(),
                    raw / 1000,
                    gz / 1000
                ),
                None => println!("{}: {} KB raw", path.display(), raw / 1000),
            }
        }
    }
    Ok(())
}

/// Exports of the page's wasm that nothing calls: `wasm-streams`' stream
/// adapters, which `#[wasm_bindgen]` exports from inside leptos'
/// `server_fn` (a dependency a client-side page never uses). Exports are
/// roots, so neither LTO nor wasm-opt drops them or what they reach; their
/// JavaScript classes only call them when constructed, which nothing does.
const UNUSED_EXPORTS: [&str; 2] = ["intounderlying", "__wbg_intounderlying"];

/// Drops [`UNUSED_EXPORTS`] from the page's wasm in `dir` (Trunk's staging
/// folder) and lets wasm-opt remove the code only they reached (~1 KB of
/// gzipped wasm, measured), in a pass that flattens and re-reloops the
/// control flow before shrinking it (~1.9 KB more), and one more shrinking
/// pass (~0.55 KB).
pub(super) fn strip_unused_exports(dir: &Path, features: &[&str]) -> Result {
    for entry in fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let path = entry.map_err(|e| e.to_string())?.path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if !(name.starts_with("plan3d-app") && name.ends_with("_bg.wasm")) {
            continue;
        }
        let wasm = fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let (stripped, removed) = without_exports(&wasm, &UNUSED_EXPORTS)
            .ok_or_else(|| format!("{}: not a wasm module this step can read", path.display()))?;
        if removed == 0 {
            continue;
        }
        fs::write(&path, stripped).map_err(|e| e.to_string())?;
        // Flattened and re-relooped before -Oz: 1.9 KB less gzipped wasm
        // than -Oz again alone; then -Oz once more on the re-relooped
        // code: 0.55 KB less (binaryen 132, measured on this page). The
        // last pass also assumes what holds for this module and says so to
        // binaryen: its memory is its own, so it starts zero-filled
        // (`--zero-filled-memory`: zero bytes of data need not be written),
        // and no valid address is within 1 KB below 2³² (the memory is a few
        // MB), so a constant under 1 KB added to a pointer folds into the
        // load's or store's offset (`--low-memory-unused`: the two differ
        // only where the addition wraps, which Rust never does with a valid
        // pointer; binaryen's own reasoning in WebAssembly/binaryen#1919):
        // 1.0 KB less; the `producers` and `target_features` custom
        // sections, which no engine reads, 0.2 KB.
        for passes in [
            &["--flatten", "--rereloop", "-Oz", "--converge"][..],
            &[
                "--zero-filled-memory",
                "--low-memory-unused",
                "-Oz",
                "--converge",
                "--strip-producers",
                "--strip-target-features",
            ],
        ] {
            super::run(
                cmd("wasm-opt")
                    .args(passes)
                    .args(features)
                    .arg(&path)
                    .arg("-o")
                    .arg(&path),
            )?;
        }
        println!("{name}: {removed} unused exports removed");
    }
    Ok(())
}

/// `wasm` with the exports whose names start with one of `prefixes`
/// removed from its export section, and how many were; `None` when it is
/// not a wasm module.
fn without_exports(wasm: &[u8], prefixes: &[&str]) -> Option<(Vec<u8>, usize)> {
    fn leb(b: &[u8], i: &mut usize) -> Option<u64> {
        let (mut r, mut s) = (0u64, 0);
        loop {
            let x = *b.get(*i)?;
            *i += 1;
            r |= u64::from(x & 0x7f) << s;
            s += 7;
            if x < 0x80 {
                return Some(r);
            }
        }
    }
    fn put(out: &mut Vec<u8>, mut n: u64) {
        loop {
            let b = (n & 0x7f) as u8;
            n >>= 7;
            if n == 0 {
                out.push(b);
                return;
            }
            out.push(b | 0x80);
        }
    }
    if wasm.get(..4)? != b"\0asm" {
        return None;
    }
    let mut out = wasm.get(..8)?.to_vec();
    let (mut i, mut removed) = (8, 0);
    while i < wasm.len() {
        let id = wasm[i];
        i += 1;
        let size = leb(wasm, &mut i)? as usize;
        let body = wasm.get(i..i + size)?;
        i += size;
        if id != 7 {
            out.push(id);
            put(&mut out, size as u64);
            out.extend_from_slice(body);
            continue;
        }
        let mut k = 0;
        let n = leb(body, &mut k)?;
        let mut kept = Vec::new();
        let mut count = 0;
        for _ in 0..n {
            let start = k;
            let len = leb(body, &mut k)? as usize;
            let name = std::str::from_utf8(body.get(k..k + len)?).ok()?;
            k += len + 1; // the name, then the export's kind
            leb(body, &mut k)?; // its index
            if prefixes.iter().any(|p| name.starts_with(p)) {
                removed += 1;
            } else {
                kept.extend_from_slice(&body[start..k]);
                count += 1;
            }
        }
        let mut section = Vec::new();
        put(&mut section, count);
        section.extend_from_slice(&kept);
        out.push(7);
        put(&mut out, section.len() as u64);
        out.extend_from_slice(&section);
    }
    Some((out, removed))
}

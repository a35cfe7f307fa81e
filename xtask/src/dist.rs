//! What `cargo xtask build` leaves in `dist/` beside Trunk's output: the
//! service worker's asset list, the Content-Security-Policy, and the size
//! report of each wasm.

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

//! A minimal WebDriver client over std: enough to drive Debian's
//! chromedriver (navigate, run scripts, take screenshots) without an async
//! runtime.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// A headless Chromium session.
pub struct Browser {
    driver: Child,
    port: u16,
    session: String,
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

fn request(
    port: u16,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> std::io::Result<(u16, Value)> {
    let mut s = TcpStream::connect(("127.0.0.1", port))?;
    s.set_read_timeout(Some(Duration::from_secs(60)))?;
    let body = body.map(Value::to_string).unwrap_or_default();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    // Read the head, then exactly Content-Length bytes: chromedriver keeps
    // the connection open whatever the request asks.
    let mut raw = Vec::new();
    let mut buf = [0u8; 8192];
    let head_end = loop {
        let n = s.read(&mut buf)?;
        if n == 0 {
            break raw.len();
        }
        raw.extend_from_slice(&buf[..n]);
        if let Some(i) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&raw[..head_end.min(raw.len())]).to_string();
    let lower = head.to_ascii_lowercase();
    let length = lower
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse::<usize>().ok());
    let chunked = lower.contains("transfer-encoding: chunked");
    loop {
        let have = raw.len() - head_end.min(raw.len());
        let done = match length {
            Some(n) => have >= n,
            None if chunked => raw.ends_with(b"0\r\n\r\n"),
            None => false,
        };
        if done {
            break;
        }
        let n = s.read(&mut buf)?;
        if n == 0 {
            break;
        }
        raw.extend_from_slice(&buf[..n]);
    }
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let rest = String::from_utf8_lossy(&raw[head_end.min(raw.len())..]).to_string();
    let payload = if chunked { dechunk(&rest) } else { rest };
    Ok((
        status,
        serde_json::from_str(&payload).unwrap_or(Value::Null),
    ))
}

fn dechunk(mut s: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = s.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        s = rest[n..].trim_start_matches("\r\n");
    }
    out
}

impl Browser {
    /// Starts chromedriver and a headless Chromium session with the flags
    /// these machines need (no sandbox as root, no background networking).
    ///
    /// # Panics
    ///
    /// When chromedriver or Chromium cannot start.
    #[must_use]
    pub fn start(width: u32, height: u32) -> Self {
        let port = free_port();
        let driver = Command::new(
            std::env::var("PLAN3D_CHROMEDRIVER").unwrap_or_else(|_| "/usr/bin/chromedriver".into()),
        )
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromedriver (`cargo xtask setup` installs it)");
        let t0 = Instant::now();
        while request(port, "GET", "/status", None).is_err() {
            assert!(
                t0.elapsed() < Duration::from_secs(20),
                "chromedriver did not start"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let profile = std::env::temp_dir().join(format!("plan3d-wd-{port}"));
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:loggingPrefs": { "browser": "ALL" },
            "goog:chromeOptions": {
                "binary": std::env::var("PLAN3D_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into()),
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--disable-background-networking", "--disable-component-update", "--disable-sync",
                         "--no-first-run", "--disable-quic", "--hide-scrollbars", "--js-flags=--expose-gc",
                         format!("--window-size={width},{height}"),
                         format!("--user-data-dir={}", profile.display())]
            }
        }}});
        let (status, v) = request(port, "POST", "/session", Some(&caps)).expect("new session");
        assert_eq!(status, 200, "new session: {v}");
        let session = v["value"]["sessionId"]
            .as_str()
            .expect("session id")
            .to_string();
        Self {
            driver,
            port,
            session,
        }
    }

    fn call(&self, method: &str, path: &str, body: Option<&Value>) -> Value {
        let path = format!("/session/{}{path}", self.session);
        let (status, v) = request(self.port, method, &path, body).expect("webdriver request");
        assert_eq!(status, 200, "{method} {path}: {v}");
        v["value"].clone()
    }

    /// Navigates and waits for the load event.
    pub fn goto(&self, url: &str) {
        self.call("POST", "/url", Some(&json!({ "url": url })));
    }

    /// How long a script may run before WebDriver gives up (default 30 s).
    pub fn script_timeout(&self, timeout: Duration) {
        self.call(
            "POST",
            "/timeouts",
            Some(&json!({ "script": timeout.as_millis() as u64 })),
        );
    }

    /// Runs a synchronous script (`return …`) with arguments.
    pub fn exec(&self, script: &str, args: &[Value]) -> Value {
        self.call(
            "POST",
            "/execute/sync",
            Some(&json!({ "script": script, "args": args })),
        )
    }

    /// Runs an asynchronous script: the last argument is the callback.
    pub fn exec_async(&self, script: &str, args: &[Value]) -> Value {
        self.call(
            "POST",
            "/execute/async",
            Some(&json!({ "script": script, "args": args })),
        )
    }

    /// Polls a script until it returns a truthy value; returns that value.
    ///
    /// # Panics
    ///
    /// When the timeout passes first.
    pub fn wait(&self, script: &str, timeout: Duration) -> Value {
        let t0 = Instant::now();
        loop {
            // A script error (an element not rendered yet, a page still
            // loading) is "not yet", not a failure: polled again.
            let path = format!("/session/{}/execute/sync", self.session);
            let body = json!({ "script": script, "args": [] });
            let v = match request(self.port, "POST", &path, Some(&body)) {
                Ok((200, v)) => v["value"].clone(),
                _ => Value::Null,
            };
            if !(v.is_null() || v == json!(false) || v == json!("")) {
                return v;
            }
            assert!(t0.elapsed() < timeout, "timed out waiting for: {script}");
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    /// The trimmed text of the element with `data-testid`, or null.
    pub fn text(&self, testid: &str) -> String {
        self.exec(
            "const e = document.querySelector(`[data-testid=\"${arguments[0]}\"]`); return e ? e.textContent.trim() : null;",
            &[json!(testid)],
        )
        .as_str()
        .unwrap_or_default()
        .to_string()
    }

    /// Scrolls until the element with `data-testid` is in the viewport (the
    /// page grows as it renders, so one scroll may land short).
    pub fn scroll_into_view(&self, testid: &str) {
        self.wait(
            &format!(
                "const e = document.querySelector('[data-testid={testid}]');
                 if (!e) return false;
                 e.scrollIntoView({{ block: 'center' }});
                 const r = e.getBoundingClientRect();
                 return r.top >= 0 && r.bottom <= innerHeight;"
            ),
            Duration::from_secs(10),
        );
    }

    /// Drags with a real (trusted) mouse through WebDriver actions: press at
    /// `from`, move through `steps` points to `to`, `step_ms` apart, release.
    /// Coordinates are viewport pixels.
    pub fn drag(&self, from: (i64, i64), to: (i64, i64), steps: u32, step_ms: u64) {
        let mut actions = vec![
            json!({ "type": "pointerMove", "duration": 0, "x": from.0, "y": from.1 }),
            json!({ "type": "pointerDown", "button": 0 }),
        ];
        for k in 1..=i64::from(steps) {
            let n = i64::from(steps);
            actions.push(json!({
                "type": "pointerMove",
                "duration": step_ms,
                "x": from.0 + (to.0 - from.0) * k / n,
                "y": from.1 + (to.1 - from.1) * k / n,
            }));
        }
        actions.push(json!({ "type": "pointerUp", "button": 0 }));
        self.mouse(actions);
    }

    /// Performs a real (trusted) mouse's `actions`, then releases it.
    fn mouse(&self, actions: Vec<Value>) {
        self.call(
            "POST",
            "/actions",
            Some(&json!({ "actions": [{
                "type": "pointer", "id": "mouse",
                "parameters": { "pointerType": "mouse" },
                "actions": actions,
            }]})),
        );
        self.call("DELETE", "/actions", None);
    }

    /// Clicks with a real (trusted) mouse at the centre of the first
    /// element `css` selects, scrolled into view first, and returns what
    /// the page had under that point (`elementFromPoint`): the `data-testid`
    /// of the element hit, or its tag name when it has none. A click that
    /// lands on another element than the one meant shows up there.
    pub fn click(&self, css: &str) -> String {
        let at = self.exec(
            "const e = document.querySelector(arguments[0]);
             e.scrollIntoView({ block: 'center' });
             const r = e.getBoundingClientRect();
             const x = Math.round(r.left + r.width / 2), y = Math.round(r.top + r.height / 2);
             const hit = document.elementFromPoint(x, y);
             return [x, y, hit ? (hit.dataset.testid || hit.tagName.toLowerCase()) : ''];",
            &[json!(css)],
        );
        let (x, y) = (at[0].as_i64().unwrap(), at[1].as_i64().unwrap());
        self.mouse(vec![
            json!({ "type": "pointerMove", "duration": 0, "x": x, "y": y }),
            json!({ "type": "pointerDown", "button": 0 }),
            json!({ "type": "pointerUp", "button": 0 }),
        ]);
        at[2].as_str().unwrap_or_default().to_string()
    }

    /// Types `text` on the keyboard (real key events into the focused
    /// element); `\u{E007}` is Enter, `\u{E004}` Tab.
    pub fn keys(&self, text: &str) {
        let mut actions = Vec::new();
        for c in text.chars() {
            actions.push(json!({ "type": "keyDown", "value": c.to_string() }));
            actions.push(json!({ "type": "keyUp", "value": c.to_string() }));
        }
        self.call(
            "POST",
            "/actions",
            Some(&json!({ "actions": [{ "type": "key", "id": "keyboard", "actions": actions }]})),
        );
        self.call("DELETE", "/actions", None);
    }

    /// Resizes the window.
    pub fn resize(&self, width: u32, height: u32) {
        self.call(
            "POST",
            "/window/rect",
            Some(&json!({ "width": width, "height": height })),
        );
    }

    /// Runs a Chrome DevTools Protocol command.
    pub fn cdp(&self, cmd: &str, params: &Value) -> Value {
        self.call(
            "POST",
            "/goog/cdp/execute",
            Some(&json!({ "cmd": cmd, "params": params })),
        )
    }

    /// Switches into the `index`-th frame of the current document.
    pub fn frame(&self, index: u32) {
        self.call("POST", "/frame", Some(&json!({ "id": index })));
    }

    /// Switches back to the top document.
    pub fn top(&self) {
        self.call("POST", "/frame", Some(&json!({ "id": null })));
    }

    /// The browser console's messages since the last call.
    pub fn console(&self) -> Vec<String> {
        self.call("POST", "/se/log", Some(&json!({ "type": "browser" })))
            .as_array()
            .map(|v| {
                v.iter()
                    .filter_map(|e| e["message"].as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// A PNG screenshot of the page.
    pub fn screenshot(&self, path: &std::path::Path) {
        use std::io::Write as _;
        let b64 = self.call("GET", "/screenshot", None);
        let bytes = base64_decode(b64.as_str().unwrap_or_default());
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        std::fs::File::create(path)
            .and_then(|mut f| f.write_all(&bytes))
            .expect("write screenshot");
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = request(
            self.port,
            "DELETE",
            &format!("/session/{}", self.session),
            None,
        );
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

fn base64_decode(s: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for v in s.bytes().filter_map(val) {
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

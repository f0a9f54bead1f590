//! `chuhe gui`: a board in the browser, served by the binary itself, to play
//! the engine and analyse locally, offline.
//!
//! The server is `tiny_http`: a small synchronous HTTP/1.1 server with few
//! dependencies, no async runtime and years of maintenance. A page on the
//! user's own machine with one user needs nothing more; requests are
//! answered one at a time on the calling thread (each takes microseconds:
//! searches run on the engine's worker thread, `engine.rs`).
//!
//! Every asset (page, script, style sheet, the font subset the pieces and
//! the Chinese notation are drawn with) is compiled into the binary: no
//! network, no system CJK fonts needed.
//!
//! Safety, for a server any web page in the user's browser could try to
//! reach: it listens on 127.0.0.1 only; it refuses a request whose Host is
//! not 127.0.0.1 or localhost at its own port (a DNS-rebinding page names
//! its own host) or whose Origin, when there is one, is not the page's own
//! (a cross-site request); and every request must carry the random token of
//! this run (`?token=`), which only the printed URL holds. It reads and
//! writes no file: records come in as uploads and go out as downloads.
//! Bodies are limited in size; malformed requests and records are answered
//! with an error message for the page, and the server goes on.

mod app;
pub mod engine;

use crate::record::Format;
use app::{ApiError, App, Shared};
use std::fmt;
use std::io::{self, Read, Write};
use std::time::{SystemTime, UNIX_EPOCH};
use tiny_http::{Header, Method, Request, Response, Server};

const INDEX_HTML: &str = include_str!("assets/index.html");
const APP_JS: &str = include_str!("assets/app.js");
const STYLE_CSS: &str = include_str!("assets/style.css");
/// The characters of the pieces, the river and Chinese move notation, cut
/// from Noto Serif CJK (SIL Open Font License 1.1, see
/// assets/fonts/LICENSE-OFL.txt) by assets/fonts/subset.py.
const FONT: &[u8] = include_bytes!("assets/fonts/chuhe-cjk.woff");

/// The largest record upload accepted (XQF files are a few KB, PGN
/// collections rarely more than a few MB).
const MAX_UPLOAD: usize = 8 << 20;
/// The largest JSON body accepted.
const MAX_JSON: usize = 64 << 10;

/// How the server runs.
#[derive(Clone, Debug)]
pub struct Options {
    /// 0: any free port.
    pub port: u16,
    pub threads: usize,
    pub hash_mb: usize,
}

/// A server bound to its port, ready to serve.
pub struct Gui {
    server: Server,
    port: u16,
    token: String,
    app: Shared,
    /// The page and style sheet with this run's token in their links.
    index: String,
    style: String,
}

/// Why the board server could not start or announce itself.
#[derive(Debug)]
pub enum GuiError {
    /// The port could not be bound (in use, or not allowed).
    Listen {
        port: u16,
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The server is bound to something other than a TCP address.
    NoTcpAddress,
    /// Writing the URL to stdout failed.
    Output(io::Error),
}

impl fmt::Display for GuiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GuiError::Listen { port, source } => {
                write!(f, "cannot listen on 127.0.0.1:{port}: {source}")
            }
            GuiError::NoTcpAddress => write!(f, "the server has no TCP address"),
            GuiError::Output(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for GuiError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            GuiError::Listen { source, .. } => Some(&**source),
            GuiError::NoTcpAddress => None,
            GuiError::Output(e) => Some(e),
        }
    }
}

impl Gui {
    /// Binds 127.0.0.1 at `options.port` and starts the engine thread.
    pub fn bind(options: &Options) -> Result<Gui, GuiError> {
        let server = Server::http(("127.0.0.1", options.port)).map_err(|e| GuiError::Listen {
            port: options.port,
            source: e,
        })?;
        let port = server
            .server_addr()
            .to_ip()
            .map(|a| a.port())
            .ok_or(GuiError::NoTcpAddress)?;
        let token = random_token();
        let index = INDEX_HTML.replace("__TOKEN__", &token);
        let style = STYLE_CSS.replace("__TOKEN__", &token);
        Ok(Gui {
            server,
            port,
            token,
            app: App::new_shared(options.threads.max(1), options.hash_mb.max(1)),
            index,
            style,
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn token(&self) -> &str {
        &self.token
    }

    /// The page's address, token included.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/?token={}", self.port, self.token)
    }

    /// Answers requests until `close` (from another thread).
    pub fn serve(&self) {
        for request in self.server.incoming_requests() {
            self.answer(request);
        }
        if let Ok(mut app) = self.app.lock() {
            app.shutdown();
        }
    }

    /// Makes `serve` return (it finishes the request in hand).
    pub fn close(&self) {
        self.server.unblock();
    }

    fn answer(&self, mut request: Request) {
        let reply = match self.check(&request) {
            Err(e) => Reply::error(e),
            Ok(()) => self.route(&mut request),
        };
        let mut response = Response::from_data(reply.body).with_status_code(reply.status);
        let mut headers = vec![
            ("Content-Type", reply.content_type.to_string()),
            ("Cache-Control", "no-store".into()),
            ("X-Content-Type-Options", "nosniff".into()),
            ("X-Frame-Options", "DENY".into()),
            ("Referrer-Policy", "no-referrer".into()),
            (
                "Content-Security-Policy",
                "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; \
                 font-src 'self'; frame-ancestors 'none'; form-action 'none'"
                    .into(),
            ),
        ];
        if let Some(name) = reply.download {
            headers.push((
                "Content-Disposition",
                format!("attachment; filename=\"{name}\""),
            ));
        }
        for (k, v) in headers {
            if let Ok(h) = Header::from_bytes(k.as_bytes(), v.as_bytes()) {
                response.add_header(h);
            }
        }
        // A client that went away is no error of ours.
        let _ = request.respond(response);
    }

    /// Host, Origin and token, in that order.
    fn check(&self, request: &Request) -> Result<(), ApiError> {
        let header = |name: &str| {
            request
                .headers()
                .iter()
                .find(|h| h.field.as_str().as_str().eq_ignore_ascii_case(name))
                .map(|h| h.value.as_str().to_string())
        };
        let own_hosts = [
            format!("127.0.0.1:{}", self.port),
            format!("localhost:{}", self.port),
        ];
        let host = header("Host").unwrap_or_default().to_ascii_lowercase();
        if !own_hosts.contains(&host) {
            return Err(ApiError(
                403,
                format!("refused: Host '{host}' is not this server's"),
            ));
        }
        if let Some(origin) = header("Origin") {
            let ok = own_hosts
                .iter()
                .any(|h| origin.eq_ignore_ascii_case(&format!("http://{h}")));
            if !ok {
                return Err(ApiError(
                    403,
                    format!("refused: Origin '{origin}' is not this page's"),
                ));
            }
        }
        let (path, query) = split_url(request.url());
        if path == "/favicon.ico" {
            return Ok(());
        }
        match query_value(query, "token") {
            Some(t) if same_secret(t.as_bytes(), self.token.as_bytes()) => Ok(()),
            Some(_) => Err(ApiError(403, "refused: wrong token".into())),
            None => Err(ApiError(
                403,
                "refused: no token (open the URL chuhe gui printed)".into(),
            )),
        }
    }

    fn route(&self, request: &mut Request) -> Reply {
        let url = request.url().to_string();
        let (path, query) = split_url(&url);
        let method = request.method().clone();
        match (&method, path) {
            (Method::Get, "/") => Reply::ok("text/html; charset=utf-8", self.index.clone()),
            (Method::Get, "/app.js") => Reply::ok("text/javascript; charset=utf-8", APP_JS),
            (Method::Get, "/style.css") => Reply::ok("text/css; charset=utf-8", self.style.clone()),
            (Method::Get, "/chuhe-cjk.woff") => Reply::ok("font/woff", FONT.to_vec()),
            (Method::Get, "/favicon.ico") => Reply {
                status: 204,
                ..Reply::ok("text/plain", "")
            },
            (Method::Get, "/api/state") => self.api(|app| app.handle("state", b"")),
            (Method::Get, "/api/save") => {
                let format = match query_value(query, "format") {
                    Some("xqf") => Format::Xqf,
                    Some("pgn") | None => Format::Pgn,
                    Some(f) => return Reply::error(ApiError(400, format!("no format '{f}'"))),
                };
                let saved = match self.app.lock() {
                    Ok(app) => app.save(format),
                    Err(_) => Err(ApiError(500, "the state is unusable".into())),
                };
                match saved {
                    Ok((bytes, mime, name)) => Reply {
                        download: Some(name),
                        ..Reply::ok(mime, bytes)
                    },
                    Err(e) => Reply::error(e),
                }
            }
            (Method::Post, "/api/load") => {
                let body = match read_body(request, MAX_UPLOAD) {
                    Ok(b) => b,
                    Err(e) => return Reply::error(e),
                };
                let hint = match query_value(query, "format") {
                    Some("xqf") => Some(Format::Xqf),
                    Some("pgn") => Some(Format::Pgn),
                    _ => None,
                };
                let index = query_value(query, "game")
                    .and_then(|g| g.parse::<usize>().ok())
                    .unwrap_or(1)
                    .saturating_sub(1);
                self.api(|app| app.load(&body, hint, index))
            }
            (Method::Post, p) if p.starts_with("/api/") => {
                let body = match read_body(request, MAX_JSON) {
                    Ok(b) => b,
                    Err(e) => return Reply::error(e),
                };
                let name = &p["/api/".len()..];
                self.api(|app| app.handle(name, &body))
            }
            (_, p) if p.starts_with("/api/") => {
                Reply::error(ApiError(405, format!("{method} is not allowed on {p}")))
            }
            _ => Reply::error(ApiError(404, format!("nothing at {path}"))),
        }
    }

    fn api(&self, f: impl FnOnce(&mut App) -> app::ApiResult) -> Reply {
        let result = match self.app.lock() {
            Ok(mut app) => f(&mut app),
            Err(_) => Err(ApiError(500, "the state is unusable".into())),
        };
        match result {
            Ok(v) => Reply::ok("application/json", v.to_string()),
            Err(e) => Reply::error(e),
        }
    }
}

struct Reply {
    status: u16,
    content_type: &'static str,
    body: Vec<u8>,
    download: Option<String>,
}

impl Reply {
    fn ok(content_type: &'static str, body: impl Into<Vec<u8>>) -> Reply {
        Reply {
            status: 200,
            content_type,
            body: body.into(),
            download: None,
        }
    }

    fn error(e: ApiError) -> Reply {
        Reply {
            status: e.0,
            content_type: "application/json",
            body: serde_json::json!({ "error": e.1 }).to_string().into_bytes(),
            download: None,
        }
    }
}

fn read_body(request: &mut Request, limit: usize) -> Result<Vec<u8>, ApiError> {
    if request.body_length().is_some_and(|n| n > limit) {
        return Err(ApiError(
            413,
            format!("request too large (at most {limit} bytes)"),
        ));
    }
    let mut body = Vec::new();
    request
        .as_reader()
        .take(limit as u64 + 1)
        .read_to_end(&mut body)
        .map_err(|e| ApiError(400, format!("cannot read the request: {e}")))?;
    if body.len() > limit {
        return Err(ApiError(
            413,
            format!("request too large (at most {limit} bytes)"),
        ));
    }
    Ok(body)
}

fn split_url(url: &str) -> (&str, &str) {
    url.split_once('?').unwrap_or((url, ""))
}

/// A query parameter's raw value (ours need no percent-decoding).
fn query_value<'a>(query: &'a str, key: &str) -> Option<&'a str> {
    query
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v)
}

/// Compares in time independent of where the two differ, so the token
/// cannot be guessed a character at a time by timing.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// 128 random bits as hex: from the system's random source where there is
/// one, else from the standard library's randomly keyed hasher (seeded by
/// the OS), mixed with the time and the process id.
fn random_token() -> String {
    let mut bytes = [0u8; 16];
    let from_os = std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .is_ok();
    if !from_os {
        use std::hash::{BuildHasher, Hasher};
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        for (i, chunk) in bytes.chunks_mut(8).enumerate() {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u128(nanos);
            h.write_u32(std::process::id());
            h.write_usize(i);
            chunk.copy_from_slice(&h.finish().to_le_bytes());
        }
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Opens `url` in the default browser; failing is no error (the URL is
/// printed for the user to open).
fn open_browser(url: &str) {
    use std::process::{Command, Stdio};
    let mut cmd = if cfg!(target_os = "macos") {
        Command::new("open")
    } else if cfg!(windows) {
        let mut c = Command::new("cmd");
        c.args(["/C", "start", ""]);
        c
    } else {
        Command::new("xdg-open")
    };
    let spawned = cmd
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    if let Err(e) = spawned {
        eprintln!("chuhe gui: could not open a browser ({e}); open the URL above");
    }
}

/// `chuhe gui`: serves until killed. The first line on stdout is the URL.
pub fn run(options: &Options, browser: bool) -> Result<(), GuiError> {
    let gui = Gui::bind(options)?;
    let url = gui.url();
    let mut out = std::io::stdout();
    writeln!(out, "{url}").map_err(GuiError::Output)?;
    out.flush().map_err(GuiError::Output)?;
    eprintln!("chuhe gui: serving the board at the URL above; Ctrl-C ends it");
    if browser {
        open_browser(&url);
    }
    gui.serve();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_and_secrets() {
        assert_eq!(
            split_url("/api/x?token=ab&game=2"),
            ("/api/x", "token=ab&game=2")
        );
        assert_eq!(query_value("token=ab&game=2", "game"), Some("2"));
        assert_eq!(query_value("token=ab", "game"), None);
        assert!(same_secret(b"abc", b"abc"));
        assert!(!same_secret(b"abc", b"abd"));
        assert!(!same_secret(b"abc", b"ab"));
        let (a, b) = (random_token(), random_token());
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
    }
}

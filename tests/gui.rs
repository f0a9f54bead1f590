//! `chuhe gui`'s server, used over HTTP as the page uses it: one server per
//! test on a free port, in-process, requests over plain `TcpStream`s.

use chuhe::gui::{Gui, Options};
use serde_json::Value;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

struct Server {
    gui: Arc<Gui>,
    handle: Option<thread::JoinHandle<()>>,
}

impl Server {
    fn start() -> Server {
        let gui = Arc::new(
            Gui::bind(&Options {
                port: 0,
                threads: 1,
                hash_mb: 16,
            })
            .expect("the server binds a free port"),
        );
        let g = gui.clone();
        let handle = thread::spawn(move || g.serve());
        Server {
            gui,
            handle: Some(handle),
        }
    }

    fn host(&self) -> String {
        format!("127.0.0.1:{}", self.gui.port())
    }

    /// A raw request: (status, body). `headers` come after Host.
    fn raw(
        &self,
        method: &str,
        path: &str,
        host: &str,
        headers: &str,
        body: &[u8],
    ) -> (u16, Vec<u8>) {
        let mut s = TcpStream::connect(self.host()).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {host}\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        s.write_all(head.as_bytes()).unwrap();
        s.write_all(body).unwrap();
        let mut reply = Vec::new();
        s.read_to_end(&mut reply).unwrap();
        let split = reply
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("a complete answer");
        let status_line = String::from_utf8_lossy(&reply[..split]).to_string();
        let status: u16 = status_line
            .split_whitespace()
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        (status, reply[split + 4..].to_vec())
    }

    fn with_token(&self, path: &str) -> String {
        let sep = if path.contains('?') { '&' } else { '?' };
        format!("{path}{sep}token={}", self.gui.token())
    }

    /// An API call as the page makes it: (status, JSON answer).
    fn call(&self, method: &str, name: &str, body: &str) -> (u16, Value) {
        let path = self.with_token(&format!("/api/{name}"));
        let origin = format!("Origin: http://{}\r\n", self.host());
        let (status, body) = self.raw(method, &path, &self.host(), &origin, body.as_bytes());
        let v = serde_json::from_slice(&body)
            .unwrap_or_else(|_| panic!("not JSON: {}", String::from_utf8_lossy(&body)));
        (status, v)
    }

    fn post(&self, name: &str, body: &str) -> Value {
        let (status, v) = self.call("POST", name, body);
        assert_eq!(status, 200, "{name} {body}: {v}");
        v
    }

    fn state(&self) -> Value {
        let (status, v) = self.call("GET", "state", "");
        assert_eq!(status, 200);
        v
    }

    /// Polls the state until `done` holds (or fails after `secs`).
    fn wait_for(&self, secs: u64, what: &str, done: impl Fn(&Value) -> bool) -> Value {
        let start = Instant::now();
        loop {
            let s = self.state();
            if done(&s) {
                return s;
            }
            assert!(
                start.elapsed().as_secs() < secs,
                "timed out waiting for {what}: {s}"
            );
            thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.gui.close();
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// Red to move mates with b7b9 (the rook on a8 holds the eighth rank).
const MATE_IN_ONE: &str = "4k4/R8/1R7/9/9/9/9/9/9/3K5 w - - 0 1";

#[test]
fn the_page_and_its_assets_need_the_token() {
    let s = Server::start();
    let host = s.host();
    let (status, body) = s.raw("GET", &s.with_token("/"), &host, "", b"");
    assert_eq!(status, 200);
    let page = String::from_utf8_lossy(&body);
    assert!(page.contains("<svg id=\"board\""));
    assert!(
        page.contains(s.gui.token()),
        "the assets' links carry the token"
    );
    for asset in ["/app.js", "/style.css", "/chuhe-cjk.woff"] {
        assert_eq!(
            s.raw("GET", &s.with_token(asset), &host, "", b"").0,
            200,
            "{asset}"
        );
        assert_eq!(
            s.raw("GET", asset, &host, "", b"").0,
            403,
            "{asset} without token"
        );
    }
    assert!(s.gui.url().starts_with("http://127.0.0.1:"));
}

#[test]
fn requests_from_elsewhere_are_refused() {
    let s = Server::start();
    let host = s.host();
    let state = s.with_token("/api/state");
    assert_eq!(s.raw("GET", &state, &host, "", b"").0, 200);
    let localhost = format!("localhost:{}", s.gui.port());
    assert_eq!(s.raw("GET", &state, &localhost, "", b"").0, 200);
    // No token, a wrong one, a token of the right length but wrong.
    assert_eq!(s.raw("GET", "/api/state", &host, "", b"").0, 403);
    assert_eq!(s.raw("GET", "/api/state?token=x", &host, "", b"").0, 403);
    let wrong = "0".repeat(s.gui.token().len());
    let (status, body) = s.raw("GET", &format!("/api/state?token={wrong}"), &host, "", b"");
    assert_eq!(status, 403);
    assert!(String::from_utf8_lossy(&body).contains("wrong token"));
    // DNS rebinding: the right token (leaked, say) under another host name.
    let (status, body) = s.raw("GET", &state, "attacker.example:80", "", b"");
    assert_eq!(status, 403);
    assert!(String::from_utf8_lossy(&body).contains("Host"));
    assert_eq!(
        s.raw(
            "GET",
            &state,
            &format!("127.0.0.1:{}", s.gui.port() ^ 1),
            "",
            b""
        )
        .0,
        403
    );
    // A cross-site request.
    let evil = "Origin: http://attacker.example\r\n";
    let (status, body) = s.raw(
        "POST",
        &s.with_token("/api/move"),
        &host,
        evil,
        br#"{"move":"h2e2"}"#,
    );
    assert_eq!(status, 403);
    assert!(String::from_utf8_lossy(&body).contains("Origin"));
    assert_eq!(s.raw("GET", &state, &host, "Origin: null\r\n", b"").0, 403);
    // Nothing was played.
    assert_eq!(s.state()["moves"].as_array().unwrap().len(), 0);
}

#[test]
fn legal_moves_and_a_move() {
    let s = Server::start();
    let st = s.state();
    assert_eq!(st["side_to_move"], "red");
    let cannon: Vec<&str> = st["legal"]["h2"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(
        cannon.contains(&"e2") && cannon.contains(&"h9"),
        "{cannon:?}"
    );
    assert!(
        st["legal"].get("h9").is_none(),
        "Black's pieces do not move now"
    );
    let st = s.post("move", r#"{"move":"h2e2"}"#);
    assert_eq!(st["moves"][0]["iccs"], "h2e2");
    assert_eq!(st["moves"][0]["chinese"], "炮二平五");
    assert_eq!(st["side_to_move"], "black");
    assert_eq!(st["last_move"], "h2e2");
    // Illegal and nonsense moves are refused with a reason.
    let (status, v) = s.call("POST", "move", r#"{"move":"e2e9"}"#);
    assert_eq!(status, 400);
    assert!(v["error"].as_str().unwrap().contains("not legal"), "{v}");
    let (status, v) = s.call("POST", "move", r#"{"move":"zz99"}"#);
    assert_eq!(status, 400);
    assert!(v["error"].as_str().unwrap().contains("not a move"), "{v}");
    // Going back and playing another move replaces the line.
    s.post("goto", r#"{"ply":0}"#);
    let st = s.post("move", r#"{"move":"b2e2"}"#);
    assert_eq!(st["moves"].as_array().unwrap().len(), 1);
    assert_eq!(st["moves"][0]["chinese"], "炮八平五");
    let st = s.post("takeback", "{}");
    assert_eq!(st["moves"].as_array().unwrap().len(), 0);
}

#[test]
fn a_game_ends_by_mate_with_the_rules_explanation() {
    let s = Server::start();
    let body = format!(r#"{{"side":"red","level":20,"movetime_ms":200,"fen":"{MATE_IN_ONE}"}}"#);
    let st = s.post("new", &body);
    assert_eq!(st["game"]["on"], true);
    assert_eq!(st["game"]["engine_side"], "black");
    let st = s.post("move", r#"{"move":"b7b9"}"#);
    assert_eq!(st["result"]["result"], "1-0");
    let summary = st["result"]["summary"].as_str().unwrap();
    assert!(summary.contains("checkmated"), "{summary}");
    assert_eq!(st["game"]["on"], false);
    assert!(
        st["legal"].as_object().unwrap().is_empty(),
        "no moves after the end"
    );
    let (status, _) = s.call("POST", "move", r#"{"move":"e9e8"}"#);
    assert_eq!(status, 400);
}

#[test]
fn the_engine_plays_its_move_and_mates() {
    let s = Server::start();
    let body = format!(r#"{{"side":"black","level":20,"movetime_ms":300,"fen":"{MATE_IN_ONE}"}}"#);
    s.post("new", &body);
    let st = s.wait_for(30, "the engine's mate", |st| !st["result"].is_null());
    // Mate (b7b9) or stalemate (b7f7, a loss too under these rules).
    assert_eq!(st["result"]["result"], "1-0", "{st}");
    assert_eq!(st["moves"].as_array().unwrap().len(), 1);
    // The human cannot move for the engine, nor resign a finished game.
    let (status, _) = s.call("POST", "resign", "{}");
    assert_eq!(status, 400);
}

/// At the third occurrence of a perpetual chase the game goes on: the
/// chaser must vary (rule 24.3), the page says so, and chasing again loses.
#[test]
fn a_perpetual_chase_must_vary_and_chasing_again_loses() {
    let s = Server::start();
    s.post("fen", r#"{"fen":"4k3r/9/1c7/9/7R1/9/9/9/9/3K5 w - - 0 1"}"#);
    let mut st = Value::Null;
    for mv in "h5h7 b7b5 h7h5 b5b7 h5h7 b7b5 h7h5 b5b7".split_whitespace() {
        st = s.post("move", &format!(r#"{{"move":"{mv}"}}"#));
    }
    assert!(st["result"].is_null(), "{st}");
    let note = st["message"].as_str().unwrap_or_default();
    assert!(
        note.starts_with("Perpetual chase by Red")
            && note.contains("Red must vary")
            && note.contains("车二进二"),
        "{st}"
    );
    // Varying plays on, and the note goes.
    let st = s.post("move", r#"{"move":"h5h4"}"#);
    assert!(st["result"].is_null() && st["message"].is_null(), "{st}");
    // Chasing again instead loses.
    s.post("takeback", "{}");
    let st = s.post("move", r#"{"move":"h5h7"}"#);
    assert_eq!(st["result"]["result"], "0-1", "{st}");
    let summary = st["result"]["summary"].as_str().unwrap();
    assert!(summary.contains("told to vary"), "{summary}");
}

#[test]
fn resigning_and_a_declined_draw() {
    let s = Server::start();
    s.post("new", r#"{"side":"red","level":1,"movetime_ms":100}"#);
    let st = s.post("draw", "{}");
    assert!(st["message"].as_str().unwrap().contains("declines"), "{st}");
    assert_eq!(st["game"]["on"], true);
    let st = s.post("resign", "{}");
    assert_eq!(st["result"]["result"], "0-1");
    assert!(st["result"]["summary"]
        .as_str()
        .unwrap()
        .contains("Red resigns"));
}

#[test]
fn analysis_gives_lines_and_stops_when_the_position_changes() {
    let s = Server::start();
    s.post("analyse", r#"{"on":true,"multipv":2}"#);
    let st = s.wait_for(30, "two analysis lines", |st| {
        st["engine"]["lines"]
            .as_array()
            .is_some_and(|l| l.len() == 2)
    });
    let line = &st["engine"]["lines"][0];
    assert_eq!(st["engine"]["task"], "analysing");
    assert!(
        line["pv_chinese"][0].as_str().unwrap().chars().count() == 4,
        "{line}"
    );
    let wdl: u64 = line["wdl"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(wdl, 1000);
    assert_eq!(st["engine"]["best"], line["pv_iccs"][0]);
    // A move: the old lines go at once, new ones come for the new position.
    let st = s.post("move", r#"{"move":"h2e2"}"#);
    assert!(st["engine"]["lines"].as_array().unwrap().is_empty());
    let st = s.wait_for(30, "lines after the move", |st| {
        st["engine"]["lines"]
            .as_array()
            .is_some_and(|l| !l.is_empty())
    });
    let first = st["engine"]["lines"][0]["pv_iccs"][0]
        .as_str()
        .unwrap()
        .to_string();
    assert!(st["legal"][&first[..2]].is_array(), "a black move: {first}");
    let st = s.post("analyse", r#"{"on":false}"#);
    assert_eq!(st["engine"]["task"], "idle");
    let (status, _) = s.call("POST", "analyse", r#"{"on":true,"multipv":99}"#);
    assert_eq!(status, 400);
}

#[test]
fn malformed_requests_get_errors_and_the_server_goes_on() {
    let s = Server::start();
    for (name, body) in [
        ("move", "{"),
        ("move", "[1,2]"),
        ("move", r#"{"mv":"h2e2"}"#),
        ("new", r#"{"side":"green"}"#),
        ("new", r#"{"side":"red","level":99}"#),
        ("goto", r#"{"ply":5}"#),
        ("fen", r#"{"fen":"not a fen"}"#),
        ("fen", "\u{0}\u{1}"),
    ] {
        let (status, v) = s.call("POST", name, body);
        assert_eq!(status, 400, "{name} {body}: {v}");
        assert!(!v["error"].as_str().unwrap().is_empty());
    }
    assert_eq!(s.call("POST", "nothing", "{}").0, 404);
    assert_eq!(s.call("DELETE", "state", "").0, 405);
    let (status, _) = s.call("POST", "move", &"x".repeat(100_000));
    assert_eq!(status, 413);
    assert_eq!(s.state()["fen"], s.state()["start_fen"]);
}

#[test]
fn records_load_and_save_and_bad_ones_are_refused() {
    let s = Server::start();
    let host = s.host();
    let origin = format!("Origin: http://{host}\r\n");
    // A bad XQF: the magic, then garbage.
    let mut bad = b"XQ".to_vec();
    bad.extend((0..900u32).map(|i| (i * 37 % 251) as u8));
    let (status, body) = s.raw(
        "POST",
        &s.with_token("/api/load?format=xqf"),
        &host,
        &origin,
        &bad,
    );
    assert_eq!(status, 400);
    let v: Value = serde_json::from_slice(&body).unwrap();
    assert!(v["error"].as_str().unwrap().contains("cannot read"), "{v}");
    let (status, _) = s.raw("POST", &s.with_token("/api/load"), &host, &origin, b"");
    assert_eq!(status, 400);
    // A line played, saved as XQF and as PGN, loads back the same.
    for mv in ["h2e2", "h9g7", "h0g2"] {
        s.post("move", &format!(r#"{{"move":"{mv}"}}"#));
    }
    for format in ["xqf", "pgn"] {
        let (status, file) = s.raw(
            "GET",
            &s.with_token(&format!("/api/save?format={format}")),
            &host,
            "",
            b"",
        );
        assert_eq!(status, 200, "{format}");
        if format == "xqf" {
            assert!(file.starts_with(b"XQ"));
        }
        s.post("fen", r#"{"fen":"3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1"}"#);
        let path = s.with_token(&format!("/api/load?format={format}"));
        let (status, body) = s.raw("POST", &path, &host, &origin, &file);
        assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
        let st: Value = serde_json::from_slice(&body).unwrap();
        let moves: Vec<&str> = st["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["iccs"].as_str().unwrap())
            .collect();
        assert_eq!(moves, ["h2e2", "h9g7", "h0g2"], "{format}");
        assert_eq!(
            st["cursor"], 0,
            "a loaded game starts at its first position"
        );
    }
    // A PGN with a comment and a variation keeps both through a save.
    let pgn = "[Event \"t\"]\n\n1. h2e2 {central cannon} (1. b2e2) h9g7 *\n";
    let (status, body) = s.raw(
        "POST",
        &s.with_token("/api/load?format=pgn"),
        &host,
        &origin,
        pgn.as_bytes(),
    );
    assert_eq!(status, 200);
    let st: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(st["moves"][0]["comment"], "central cannon");
    assert_eq!(st["moves"][0]["variations"], 1);
    let (_, saved) = s.raw("GET", &s.with_token("/api/save?format=pgn"), &host, "", b"");
    let saved = String::from_utf8(saved).unwrap();
    assert!(
        saved.contains("central cannon") && saved.contains("b2e2"),
        "{saved}"
    );
    assert_eq!(
        s.raw("GET", &s.with_token("/api/save?format=doc"), &host, "", b"")
            .0,
        400
    );
}

#[test]
fn a_whole_game_review_marks_the_moves() {
    let s = Server::start();
    for mv in ["h2e2", "h9g7", "h0g2", "g6g5"] {
        s.post("move", &format!(r#"{{"move":"{mv}"}}"#));
    }
    s.post("review", r#"{"movetime_ms":50}"#);
    let st = s.wait_for(60, "the review", |st| st["review"]["running"] == false);
    assert!(st["review"]["error"].is_null(), "{st}");
    let plies = st["review"]["plies"].as_array().unwrap();
    assert_eq!(plies.len(), 4);
    assert!(plies.iter().all(|p| p["red_cp"].is_i64()));
}

#[test]
fn the_engine_stops_promptly() {
    use chuhe::gui::engine::{EngineHandle, Event, Job};
    use chuhe_core::board::Position;
    use chuhe_core::engine::Strength;
    use chuhe_core::search::Limits;
    use std::sync::mpsc::channel;
    let (tx, rx) = channel();
    let mut engine = EngineHandle::spawn(
        1,
        16,
        Box::new(move |id, e| {
            if let Event::Done(_) = e {
                let _ = tx.send((id, Instant::now()));
            }
        }),
    );
    for _ in 0..3 {
        let id = engine.start(Job::Search {
            pos: Box::new(Position::startpos()),
            limits: Limits {
                infinite: true,
                multipv: 3,
                ..Limits::default()
            },
            strength: Strength::full(),
            fresh: false,
        });
        thread::sleep(Duration::from_millis(400));
        let asked = Instant::now();
        engine.stop();
        let (done, at) = rx.recv_timeout(Duration::from_secs(5)).expect("it stops");
        assert_eq!(done, id);
        let took = at.duration_since(asked);
        println!("stopped in {took:?}");
        // 50 ms is the aim; the bound leaves room for a loaded test machine.
        assert!(took < Duration::from_millis(200), "took {took:?}");
    }
}

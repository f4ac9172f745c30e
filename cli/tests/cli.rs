//! Runs the built `utf8check` on files written to a temporary directory and checks its
//! output and exit status against an independent oracle: std's lossy decoding
//! (`<[u8]>::utf8_chunks`) for the positions of invalid sequences, and a line/column
//! count written here.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use assert_cmd::assert::OutputAssertExt;
use predicates::prelude::*;
use serde_json::Value;
use tempfile::TempDir;
use utf8check::Kernel;

const BIN: &str = env!("CARGO_BIN_EXE_utf8check");

fn cmd() -> Command {
    Command::new(BIN)
}

/// Runs `utf8check args...` with `input` on a piped standard input.
fn run_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = cmd()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    // Written from another thread, so that a large input cannot deadlock on full pipes.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    output
}

fn run(args: &[&str]) -> Output {
    cmd().args(args).output().unwrap()
}

fn write(dir: &TempDir, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.path().join(name);
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).unwrap();
    }
    fs::write(&path, bytes).unwrap();
    path
}

fn text(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).unwrap()
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// An invalid sequence as the program should report it.
#[derive(Debug, PartialEq)]
struct Expected {
    offset: u64,
    line: u64,
    column: u64,
    kind: &'static str,
    bytes: String,
}

/// The kind of the error at the start of `rest` (written from the Unicode tables, not
/// from the library).
fn kind_of(rest: &[u8]) -> &'static str {
    let err = std::str::from_utf8(rest).unwrap_err();
    assert_eq!(err.valid_up_to(), 0);
    if err.error_len().is_none() {
        return "truncated";
    }
    match (rest[0], rest.get(1).copied().unwrap_or(0)) {
        (0x80..=0xBF, _) => "unexpected_continuation",
        (0xC0 | 0xC1 | 0xF5..=0xFF, _) => "invalid_byte",
        (0xE0, 0x80..=0x9F) | (0xF0, 0x80..=0x8F) => "overlong",
        (0xED, 0xA0..=0xBF) => "surrogate",
        (0xF4, 0x90..=0xBF) => "too_large",
        _ => "too_short",
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Every invalid sequence of `data`, where lossy decoding puts a U+FFFD.
fn oracle(data: &[u8]) -> Vec<Expected> {
    let (mut offset, mut line, mut column) = (0, 1, 1);
    let mut found = Vec::new();
    for chunk in data.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c == '\n' {
                line += 1;
                column = 1;
            } else {
                column += 1;
            }
        }
        offset += chunk.valid().len();
        let invalid = chunk.invalid();
        if !invalid.is_empty() {
            found.push(Expected {
                offset: offset as u64,
                line,
                column,
                kind: kind_of(&data[offset..]),
                bytes: hex(invalid),
            });
            column += 1;
            offset += invalid.len();
        }
    }
    found
}

/// The text lines the program should print for `found` in the input `name`.
fn lines(name: &str, found: &[Expected]) -> String {
    found
        .iter()
        .map(|e| {
            format!(
                "{name}:{}:{}: invalid UTF-8 ({}) at byte {}: {}\n",
                e.line, e.column, e.kind, e.offset, e.bytes
            )
        })
        .collect()
}

/// The errors of one JSON object of `--json` output.
fn json_errors(object: &Value) -> Vec<Expected> {
    let kinds = [
        "unexpected_continuation",
        "invalid_byte",
        "truncated",
        "overlong",
        "surrogate",
        "too_large",
        "too_short",
    ];
    object["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| Expected {
            offset: e["offset"].as_u64().unwrap(),
            line: e["line"].as_u64().unwrap(),
            column: e["column"].as_u64().unwrap(),
            kind: kinds.iter().find(|&&k| k == e["kind"]).copied().unwrap(),
            bytes: e["bytes"].as_str().unwrap().to_owned(),
        })
        .collect()
}

fn json_objects(stdout: &[u8]) -> Vec<Value> {
    text(stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// Every way of reading a file the program has: (description, extra arguments, through
/// standard input?).
fn modes() -> Vec<(String, Vec<String>, bool)> {
    let mut modes = vec![
        ("mapped".to_owned(), vec![], false),
        ("read".to_owned(), vec!["--no-mmap".to_owned()], false),
        ("pipe".to_owned(), vec![], true),
        (
            "one thread".to_owned(),
            vec!["--threads=1".to_owned()],
            false,
        ),
        ("two threads".to_owned(), vec!["-j2".to_owned()], false),
    ];
    for kernel in Kernel::available() {
        let arg = format!("--kernel={}", kernel.name());
        modes.push((format!("{kernel} mapped"), vec![arg.clone()], false));
        modes.push((format!("{kernel} pipe"), vec![arg], true));
    }
    modes
}

/// Checks `data` in every mode, `--all --json` and plain text, against the oracle.
fn check_everywhere(dir: &TempDir, data: &[u8]) {
    let expected = oracle(data);
    let path = write(dir, "input.bin", data);
    for (mode, extra, piped) in modes() {
        let mut args: Vec<&str> = extra.iter().map(String::as_str).collect();
        args.extend(["--all", "--json"]);
        if !piped {
            args.push(s(&path));
        }
        let output = if piped {
            run_stdin(&args, data)
        } else {
            run(&args)
        };
        let status = output.status.code();
        assert_eq!(
            status,
            Some(if expected.is_empty() { 0 } else { 1 }),
            "{mode}"
        );
        let objects = json_objects(&output.stdout);
        assert_eq!(objects.len(), 1, "{mode}");
        assert_eq!(
            objects[0]["bytes"].as_u64(),
            Some(data.len() as u64),
            "{mode}"
        );
        assert_eq!(objects[0]["truncated"], Value::Bool(false), "{mode}");
        assert_eq!(json_errors(&objects[0]), expected, "{mode}");

        // Without --all: the first error only, as text.
        args.retain(|&a| a != "--all" && a != "--json");
        let output = if piped {
            run_stdin(&args, data)
        } else {
            run(&args)
        };
        let name = if piped { "<stdin>" } else { s(&path) };
        let first = &expected[..expected.len().min(1)];
        assert_eq!(text(&output.stdout), lines(name, first), "{mode}");
        assert!(output.stderr.is_empty(), "{mode}: {}", text(&output.stderr));
    }
}

/// Text in many scripts, lines ending in LF or CRLF.
fn multilingual(len: usize) -> Vec<u8> {
    let samples = [
        "The quick brown fox jumps over the lazy dog.\n",
        "Ça, c'est très bien — déjà vu, naïve façade.\r\n",
        "Στο Ελληνικό αλφάβητο υπάρχουν είκοσι τέσσερα γράμματα.\n",
        "Съешь же ещё этих мягких французских булок.\n",
        "日本語のテキストと中文文本，还有한국어 문장도 있습니다。\n",
        "النص العربي يُكتب من اليمين إلى اليسار.\r\n",
        "हिन्दी में लिखा गया वाक्य।\n",
        "Emoji: 😀🎉🚀 and symbols ∑∞≠ ₿ 𝄞 \u{10FFFF}\n",
    ];
    let mut out = Vec::with_capacity(len + 100);
    let mut i = 0;
    while out.len() < len {
        out.extend_from_slice(samples[i % samples.len()].as_bytes());
        i += 7;
    }
    out
}

#[test]
fn valid_text_in_many_scripts_prints_nothing() {
    let dir = TempDir::new().unwrap();
    for (i, len) in [100, 70_000, 3 << 20].into_iter().enumerate() {
        let path = write(&dir, &format!("valid{i}.txt"), &multilingual(len));
        cmd().arg(&path).assert().success().stdout("").stderr("");
        let size = fs::metadata(&path).unwrap().len();
        cmd()
            .arg("-v")
            .arg(&path)
            .assert()
            .success()
            .stdout(format!("{}: valid UTF-8, {size} bytes\n", s(&path)));
    }
    check_everywhere(&dir, &multilingual(200_000));
}

#[test]
fn empty_file_is_valid() {
    let dir = TempDir::new().unwrap();
    let path = write(&dir, "empty", b"");
    cmd().arg(&path).assert().success().stdout("");
    let output = run(&["--json", s(&path)]);
    assert_eq!(output.status.code(), Some(0));
    let objects = json_objects(&output.stdout);
    assert_eq!(objects[0]["bytes"], 0);
    assert_eq!(objects[0]["valid"], true);
    assert_eq!(objects[0]["errors"], Value::Array(vec![]));
    run_stdin(&[], b"").assert().success().stdout("");
    check_everywhere(&dir, b"");
}

/// One invalid sequence of each kind, and its expected kind and reported bytes.
const BAD: [(&[u8], &str, &str); 8] = [
    (b"\x80", "unexpected_continuation", "80"),
    (b"\xFF", "invalid_byte", "FF"),
    (b"\xC0\xAF", "invalid_byte", "C0"),
    (b"\xE0\x80\xAF", "overlong", "E0"),
    (b"\xED\xA0\x80", "surrogate", "ED"),
    (b"\xF4\x90\x80\x80", "too_large", "F4"),
    (b"\xE2\x82x", "too_short", "E2 82"),
    (b"\xF0\x9F\x98!", "too_short", "F0 9F 98"),
];

#[test]
fn every_kind_at_first_byte_mid_file_and_last_byte() {
    let dir = TempDir::new().unwrap();
    let body = multilingual(100_000);
    for (bad, kind, bytes) in BAD {
        for at in [0, 50_001, body.len()] {
            // Insert at a character boundary (the start of a line).
            let at = if at == 0 || at == body.len() {
                at
            } else {
                at + body[at..].iter().position(|&b| b == b'\n').unwrap() + 1
            };
            let mut data = body[..at].to_vec();
            data.extend_from_slice(bad);
            data.extend_from_slice(&body[at..]);
            let expected = oracle(&data);
            assert_eq!(
                (expected[0].kind, expected[0].bytes.as_str()),
                (kind, bytes)
            );
            assert_eq!(expected[0].offset, at as u64);
            let path = write(&dir, "bad.txt", &data);
            let output = run(&[s(&path)]);
            assert_eq!(output.status.code(), Some(1));
            assert_eq!(text(&output.stdout), lines(s(&path), &expected[..1]));
        }
        // A small file (read, not mapped) whose last byte is bad.
        let mut data = b"line one\nline two \xC3\xA9 ".to_vec();
        data.extend_from_slice(bad);
        let expected = oracle(&data);
        let path = write(&dir, "small.txt", &data);
        run(&["--all", s(&path)])
            .assert()
            .code(1)
            .stdout(lines(s(&path), &expected));
    }
}

#[test]
fn truncated_at_end_of_file() {
    let dir = TempDir::new().unwrap();
    for tail in [&b"\xC3"[..], b"\xE2\x82", b"\xF0\x9F\x98"] {
        for body in [multilingual(10), multilingual(100_000)] {
            let mut data = body.clone();
            data.extend_from_slice(tail);
            let expected = oracle(&data);
            assert_eq!(expected.len(), 1);
            assert_eq!(expected[0].kind, "truncated");
            assert_eq!(expected[0].bytes, hex(tail));
            check_everywhere(&dir, &data);
        }
    }
}

#[test]
fn errors_across_read_and_window_boundaries() {
    let dir = TempDir::new().unwrap();
    // Invalid and valid multi-byte sequences straddling 64 KiB and 1 MiB boundaries (pipe
    // and file read sizes) and the windows after an error.
    let mut data = multilingual(1 << 21);
    let mut at = 0;
    for boundary in [
        1usize << 16,
        2 << 16,
        3 << 16,
        1 << 20,
        (1 << 20) + (1 << 16),
    ] {
        for (offset, bad) in [
            (-1isize, &b"\xE2\x82x"[..]),
            (-2, b"\xF0\x9F\x98\x80"),
            (-1, b"\xED\xA0\x80"),
        ] {
            at = (boundary as isize + offset) as usize;
            data[at..at + bad.len()].copy_from_slice(bad);
        }
    }
    assert!(at > 0);
    check_everywhere(&dir, &data);
}

#[test]
fn binary_data_with_dense_errors() {
    let dir = TempDir::new().unwrap();
    // A pseudo-random mix of text and bytes: an error every few bytes.
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut data = Vec::new();
    let text = multilingual(4000);
    while data.len() < 300_000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        if state % 3 == 0 {
            let start = (state >> 8) as usize % 3000;
            data.extend_from_slice(&text[start..start + (state >> 40) as usize % 40]);
        } else {
            data.extend_from_slice(&state.to_le_bytes()[..(state >> 60) as usize % 8]);
        }
    }
    check_everywhere(&dir, &data);
}

#[test]
fn crlf_lines_are_counted_like_lf_lines() {
    let dir = TempDir::new().unwrap();
    let path = write(&dir, "crlf.txt", b"one\r\ntwo\r\n\r\nthr\xC3\xA9e \xFF\r\n");
    run(&[s(&path)]).assert().code(1).stdout(format!(
        "{}:4:7: invalid UTF-8 (invalid_byte) at byte 19: FF\n",
        s(&path)
    ));
    // A lone CR is not a line end.
    let path = write(&dir, "cr.txt", b"one\rtwo\r\xFF");
    run(&[s(&path)]).assert().code(1).stdout(format!(
        "{}:1:9: invalid UTF-8 (invalid_byte) at byte 8: FF\n",
        s(&path)
    ));
}

#[test]
fn stdin_and_dash() {
    run_stdin(&[], "héllo\n".as_bytes())
        .assert()
        .success()
        .stdout("");
    run_stdin(&["-"], b"ab\ncd\xE2\x82")
        .assert()
        .code(1)
        .stdout("<stdin>:2:3: invalid UTF-8 (truncated) at byte 5: E2 82\n");
    // A regular file on standard input is mapped, from the current position.
    let dir = TempDir::new().unwrap();
    let mut data = multilingual(100_000);
    data.push(0xFF);
    let path = write(&dir, "f", &data);
    let expected = oracle(&data);
    let output = cmd()
        .stdin(fs::File::open(&path).unwrap())
        .output()
        .unwrap();
    assert_eq!(text(&output.stdout), lines("<stdin>", &expected));
    let mut file = fs::File::open(&path).unwrap();
    std::io::Seek::seek(&mut file, std::io::SeekFrom::Start(1000)).unwrap();
    let output = cmd().arg("--json").stdin(file).output().unwrap();
    let objects = json_objects(&output.stdout);
    assert_eq!(objects[0]["bytes"].as_u64(), Some(data.len() as u64 - 1000));
    assert_eq!(
        objects[0]["errors"][0]["offset"].as_u64(),
        Some(data.len() as u64 - 1001)
    );
}

#[cfg(unix)]
#[test]
fn fifo_is_streamed() {
    let dir = TempDir::new().unwrap();
    let fifo = dir.path().join("fifo");
    let c_path = std::ffi::CString::new(s(&fifo)).unwrap();
    // SAFETY: `c_path` is a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
    let mut data = multilingual(300_000);
    data.extend_from_slice(b"\xED\xBF\xBF tail\n");
    let expected = oracle(&data);
    let writer = {
        let (fifo, data) = (fifo.clone(), data.clone());
        std::thread::spawn(move || fs::write(fifo, data).unwrap())
    };
    let output = run(&["--all", s(&fifo)]);
    writer.join().unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(text(&output.stdout), lines(s(&fifo), &expected));
    // Met while walking a directory, a FIFO is skipped (opening it could block).
    run(&["-r", s(dir.path())]).assert().success().stdout("");
}

#[test]
fn directories_need_recursive() {
    let dir = TempDir::new().unwrap();
    write(&dir, "b/ok.txt", "fine ✓\n".as_bytes());
    write(&dir, "b/deep/bad2.txt", b"\xC1\xBF");
    write(&dir, "a.txt", b"x\xF5");
    write(&dir, "c/empty", b"");
    let root = s(dir.path());
    run(&[root]).assert().code(2).stdout("").stderr(format!(
        "utf8check: {root}: is a directory (use -r to check the files in it)\n"
    ));
    run(&["-r", root]).assert().code(1).stdout(format!(
        "{root}/a.txt:1:2: invalid UTF-8 (invalid_byte) at byte 1: F5\n\
         {root}/b/deep/bad2.txt:1:1: invalid UTF-8 (invalid_byte) at byte 0: C1\n"
    ));
    run(&["-r", "-l", root])
        .assert()
        .code(1)
        .stdout(format!("{root}/a.txt\n{root}/b/deep/bad2.txt\n"));
    let output = run(&["-r", "--json", root]);
    let objects = json_objects(&output.stdout);
    let paths: Vec<&str> = objects
        .iter()
        .map(|o| o["path"].as_str().unwrap())
        .collect();
    let expected =
        ["a.txt", "b/deep/bad2.txt", "b/ok.txt", "c/empty"].map(|p| format!("{root}/{p}"));
    assert_eq!(paths, expected);
}

#[cfg(unix)]
#[test]
fn symbolic_links_while_walking() {
    let dir = TempDir::new().unwrap();
    write(&dir, "target/bad.txt", b"\xFF");
    write(&dir, "tree/ok.txt", b"ok");
    std::os::unix::fs::symlink(dir.path().join("target"), dir.path().join("tree/link")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("tree"), dir.path().join("tree/loop")).unwrap();
    let tree = s(&dir.path().join("tree")).to_owned();
    run(&["-r", &tree]).assert().success().stdout("").stderr("");
    run(&["-r", "-L", "-l", &tree])
        .assert()
        .code(2)
        .stdout(format!("{tree}/link/bad.txt\n"))
        .stderr(predicate::str::contains(format!("{tree}/loop: link loop")));
    // A link named on the command line is followed.
    run(&["-l", &format!("{tree}/link/bad.txt")])
        .assert()
        .code(1);
}

#[test]
fn missing_file_is_reported_and_the_others_still_checked() {
    let dir = TempDir::new().unwrap();
    let bad = write(&dir, "bad.txt", b"\xFF");
    let good = write(&dir, "good.txt", b"good");
    let missing = dir.path().join("missing.txt");
    run(&[s(&missing), s(&bad), s(&good)])
        .assert()
        .code(2)
        .stdout(format!(
            "{}:1:1: invalid UTF-8 (invalid_byte) at byte 0: FF\n",
            s(&bad)
        ))
        .stderr(format!(
            "utf8check: {}: No such file or directory\n",
            s(&missing)
        ));
    let output = run(&["--json", s(&missing), s(&good)]);
    let objects = json_objects(&output.stdout);
    assert_eq!(objects[0]["path"], s(&missing));
    assert_eq!(objects[0]["error"], "No such file or directory");
    assert_eq!(objects[1]["valid"], true);
    assert_eq!(output.status.code(), Some(2));
}

#[cfg(unix)]
#[test]
fn unreadable_file() {
    use std::os::unix::fs::PermissionsExt;
    let dir = TempDir::new().unwrap();
    let path = write(&dir, "secret.txt", b"text");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o000)).unwrap();
    let unreadable = if fs::File::open(&path).is_err() {
        path
    } else if Path::new("/proc/self/mem").exists() {
        // Running as root, which reads any file: /proc/self/mem is a file that no one
        // can read from its start (address 0 is never mapped).
        PathBuf::from("/proc/self/mem")
    } else {
        println!("skipped: running as root and there is no /proc/self/mem to fail reading");
        return;
    };
    let good = write(&dir, "good.txt", b"good");
    run(&[s(&unreadable), s(&good)])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::starts_with(format!(
            "utf8check: {}: ",
            s(&unreadable)
        )))
        .stderr(predicate::str::contains("panicked").not())
        .stderr(predicate::function(|err: &str| err.lines().count() == 1));
}

#[test]
fn all_and_max_errors() {
    let dir = TempDir::new().unwrap();
    let data = b"a\xFFb\xFEc\n\xE2\x82d\xC3";
    let expected = oracle(data);
    assert_eq!(expected.len(), 4);
    let path = write(&dir, "four.txt", data);
    let name = s(&path);
    run(&[name])
        .assert()
        .code(1)
        .stdout(lines(name, &expected[..1]));
    run(&["--all", name])
        .assert()
        .code(1)
        .stdout(lines(name, &expected));
    run(&["-a", "--max-errors", "2", name])
        .assert()
        .code(1)
        .stdout(lines(name, &expected[..2]))
        .stderr(format!(
            "utf8check: {name}: more invalid sequences after the first 2\n"
        ));
    // --max-errors implies --all.
    run(&["-m", "3", name])
        .assert()
        .code(1)
        .stdout(lines(name, &expected[..3]));
    run(&["-m", "4", name])
        .assert()
        .code(1)
        .stdout(lines(name, &expected))
        .stderr("");
    let output = run(&["--json", "-m", "2", name]);
    let objects = json_objects(&output.stdout);
    assert_eq!(objects[0]["truncated"], true);
    assert_eq!(json_errors(&objects[0]), expected[..2]);
    // Without --all, "truncated" still says whether more follow.
    let objects = json_objects(&run(&["--json", name]).stdout);
    assert_eq!(
        (
            objects[0]["errors"].as_array().unwrap().len(),
            &objects[0]["truncated"]
        ),
        (1, &Value::Bool(true))
    );
    run(&["--max-errors", "0", name]).assert().code(2);
}

#[test]
fn json_output_parses() {
    let dir = TempDir::new().unwrap();
    let good = write(&dir, "good \"quoted\".txt", "ok ✓".as_bytes());
    let bad = write(&dir, "bad.txt", b"ok\n  \xF4\x90\x80\x80");
    let output = run(&["--json", "--all", s(&good), s(&bad)]);
    assert_eq!(output.status.code(), Some(1));
    let objects = json_objects(&output.stdout);
    assert_eq!(objects.len(), 2);
    assert_eq!(objects[0]["path"], s(&good));
    assert_eq!(objects[0]["valid"], true);
    assert_eq!(objects[0]["bytes"], 6);
    assert_eq!(objects[1]["valid"], false);
    assert_eq!(objects[1]["bytes"], 9);
    let error = &objects[1]["errors"][0];
    assert_eq!(error["offset"], 5);
    assert_eq!(error["line"], 2);
    assert_eq!(error["column"], 3);
    assert_eq!(error["kind"], "too_large");
    assert_eq!(error["bytes"], "F4");
    // F4 90 80 80: F4, then three stray continuation bytes.
    assert_eq!(objects[1]["errors"].as_array().unwrap().len(), 4);
}

#[test]
fn output_modes() {
    let dir = TempDir::new().unwrap();
    let bad = write(&dir, "bad.txt", b"\xFF");
    let good = write(&dir, "good.txt", b"good");
    run(&["-q", s(&bad), s(&good)])
        .assert()
        .code(1)
        .stdout("")
        .stderr("");
    run(&["-q", s(&good)]).assert().code(0).stdout("");
    run(&["-l", s(&bad), s(&good)])
        .assert()
        .code(1)
        .stdout(format!("{}\n", s(&bad)));
    // Conflicting output modes are usage errors.
    for conflict in [
        ["-q", "-v"],
        ["-l", "--json"],
        ["-q", "--json"],
        ["-l", "-v"],
    ] {
        run(&[conflict[0], conflict[1], s(&good)]).assert().code(2);
    }
    let output = run(&["--stats", s(&good), s(&bad)]);
    let stats = text(&output.stderr);
    assert!(
        stats.starts_with("utf8check: 2 inputs, 5 bytes in "),
        "{stats}"
    );
    assert!(
        stats.contains(&format!("kernel {}", Kernel::detected())),
        "{stats}"
    );
    assert!(stats.contains(" threads"), "{stats}");
    let output = run(&["--stats", "--kernel", "scalar", "-q", s(&good)]);
    assert!(text(&output.stderr).contains("kernel scalar, 1 threads"));
}

#[test]
fn kernels_available_and_not() {
    let dir = TempDir::new().unwrap();
    let path = write(&dir, "k.txt", b"ab\xED\xA0\x80");
    for kernel in Kernel::available() {
        run(&["--kernel", kernel.name(), s(&path)])
            .assert()
            .code(1)
            .stdout(format!(
                "{}:1:3: invalid UTF-8 (surrogate) at byte 2: ED\n",
                s(&path)
            ));
    }
    for name in ["scalar", "sse4.1", "avx2", "avx512", "neon"] {
        let kernel: Kernel = name.parse().unwrap();
        if !kernel.is_supported() {
            run(&["--kernel", name, s(&path)])
                .assert()
                .code(2)
                .stdout("")
                .stderr(predicate::str::contains("this CPU cannot run the"))
                .stderr(predicate::str::contains("panicked").not());
        }
    }
    run(&["--kernel", "avx-512", s(&path)])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown kernel"));
}

#[test]
fn threads() {
    let dir = TempDir::new().unwrap();
    let mut data = multilingual(3 << 20);
    let at = data.len() - 1000;
    data[at] = 0xC0;
    let path = write(&dir, "t.txt", &data);
    let expected = lines(s(&path), &oracle(&data)[..1]);
    for n in ["1", "2", "3", "8"] {
        run(&["--threads", n, s(&path)])
            .assert()
            .code(1)
            .stdout(expected.clone());
    }
    run(&["--threads", "0", s(&path)]).assert().code(2);
    run(&["--threads", "many", s(&path)]).assert().code(2);
}

#[test]
fn exit_statuses_and_usage() {
    let dir = TempDir::new().unwrap();
    let good = write(&dir, "good.txt", b"good");
    let bad = write(&dir, "bad.txt", b"\x80");
    run(&[s(&good)]).assert().code(0);
    run(&[s(&good), s(&bad)]).assert().code(1);
    run(&[s(&bad), s(&dir.path().join("none"))])
        .assert()
        .code(2);
    run(&["--no-such-option"]).assert().code(2);
    run(&["-L", s(&good)]).assert().code(2); // -L needs -r
    run(&["--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("EXIT STATUS"))
        .stdout(predicate::str::contains("too_short"));
    run(&["--version"]).assert().success();
}

#[cfg(unix)]
#[test]
fn closed_stdout_is_not_a_crash() {
    let dir = TempDir::new().unwrap();
    let paths: Vec<PathBuf> = (0..4000)
        .map(|i| write(&dir, &format!("f{i:04}"), b"\xFF"))
        .collect();
    let mut child = cmd()
        .arg("-l")
        .args(&paths)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read one line, then close the pipe.
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 16];
    std::io::Read::read(&mut stdout, &mut first).unwrap();
    drop(stdout);
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(text(&output.stderr), "");
}

#[cfg(target_os = "linux")]
#[test]
fn file_that_shrinks_while_mapped() {
    let dir = TempDir::new().unwrap();
    // A sparse file of zeros (valid UTF-8): large enough that checking it takes a while,
    // without using disk space.
    let path = dir.path().join("sparse");
    let file = fs::File::create(&path).unwrap();
    file.set_len(2 << 30).unwrap();
    let child = cmd()
        .arg(&path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(150));
    file.set_len(1 << 20).unwrap();
    let output = child.wait_with_output().unwrap();
    // Either the reads past the new end fault (SIGBUS) or the size check afterwards sees
    // the change; both are a one-line problem naming the file, and status 2.
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with(&format!("utf8check: {}: ", s(&path))),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert_eq!(text(&output.stdout), "");
}

// --- --repair -------------------------------------------------------------------------

/// Python's lossy decoding of `path` (`bytes.decode('utf-8', errors)`, `errors` being
/// `replace` or `ignore`), encoded again as UTF-8: the oracle of `--repair` and
/// `--repair=drop`. Python's decoder replaces the same maximal subparts as std.
fn python_decode(path: &Path, errors: &str) -> Vec<u8> {
    let script = "import sys\n\
        data = open(sys.argv[1], 'rb').read()\n\
        sys.stdout.buffer.write(data.decode('utf-8', sys.argv[2]).encode('utf-8'))";
    let output = Command::new("python3")
        .args(["-c", script, s(path), errors])
        .output()
        .expect("python3 runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

/// `--repair` and `--repair=drop` on `data` as a mapped or read file, through a pipe and
/// with `--no-mmap`, against Python; the exit status says whether anything was repaired.
fn check_repair(dir: &TempDir, name: &str, data: &[u8]) {
    let path = write(dir, name, data);
    let status = if std::str::from_utf8(data).is_ok() {
        0
    } else {
        1
    };
    for (flag, errors) in [("--repair", "replace"), ("--repair=drop", "ignore")] {
        let want = python_decode(&path, errors);
        let runs = [
            ("file", run(&[flag, s(&path)])),
            ("no-mmap", run(&[flag, "--no-mmap", s(&path)])),
            ("pipe", run_stdin(&[flag], data)),
            ("dash", run_stdin(&[flag, "-"], data)),
        ];
        for (how, output) in runs {
            assert!(
                output.stdout == want,
                "{name}, {flag}, {how}: output differs from Python's ({} bytes, want {})",
                output.stdout.len(),
                want.len()
            );
            assert_eq!(output.status.code(), Some(status), "{name}, {flag}, {how}");
            assert!(output.stderr.is_empty(), "{}", text(&output.stderr));
        }
    }
}

#[test]
fn repair_matches_python() {
    let dir = TempDir::new().unwrap();
    check_repair(&dir, "valid.txt", &multilingual(100_000));
    check_repair(&dir, "empty.txt", b"");
    // Every byte, and every pair, separated by ASCII (small: read, not mapped).
    let mut bytes = Vec::new();
    for a in 0..=255u8 {
        bytes.extend_from_slice(&[a, b'.']);
    }
    check_repair(&dir, "bytes.bin", &bytes);
    let mut pairs = Vec::new();
    for a in 0..=255u8 {
        for b in 0..=255u8 {
            pairs.extend_from_slice(&[a, b, b'.']);
        }
    }
    check_repair(&dir, "pairs.bin", &pairs);
    // Sequences cut at the end of the input.
    for end in ["\u{E9}", "\u{20AC}", "\u{1F600}"] {
        let bytes = end.as_bytes();
        for cut in 1..bytes.len() {
            let mut data = multilingual(70_000);
            data.extend_from_slice(&bytes[..cut]);
            check_repair(&dir, "cut.txt", &data);
        }
    }
}

#[test]
fn repair_of_damaged_text_across_pieces_and_reads() {
    let dir = TempDir::new().unwrap();
    // Damage every few KiB and at the boundaries of the 4 MiB pieces and 1 MiB reads,
    // some of it in the middle of characters; then dense damage.
    let mut data = multilingual(9 << 20);
    let mut at = 7;
    while at < data.len() {
        data[at] = [0xFF, 0x80, 0xE2, 0xC3, 0xF0][at % 5];
        at += 1 + at % 5000;
    }
    for boundary in [1 << 20, 4 << 20, 8 << 20] {
        for delta in [-2isize, -1, 0, 1] {
            let i = (boundary as isize + delta) as usize;
            data[i] = [0xE2, 0x82, 0xF0, 0x9F][(delta + 2) as usize];
        }
    }
    check_repair(&dir, "damaged.txt", &data);
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let noise: Vec<u8> = (0..200_000)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect();
    check_repair(&dir, "noise.bin", &noise);
}

#[test]
fn repair_writes_every_input_in_order_and_reports_problems() {
    let dir = TempDir::new().unwrap();
    let good = write(&dir, "good.txt", "héllo\n".as_bytes());
    let bad = write(&dir, "bad.txt", b"d\xE9j\xE0\n");
    let missing = dir.path().join("missing.txt");
    let output = run(&["--repair", s(&good), s(&missing), s(&bad), s(&good)]);
    assert_eq!(text(&output.stdout), "héllo\nd\u{FFFD}j\u{FFFD}\nhéllo\n");
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        text(&output.stderr),
        format!(
            "utf8check: {}: No such file or directory\n",
            missing.display()
        )
    );
    let output = run(&["--repair=drop", s(&bad), s(&good)]);
    assert_eq!(text(&output.stdout), "dj\nhéllo\n");
    assert_eq!(output.status.code(), Some(1));
    let output = run(&["--repair", s(&good)]);
    assert_eq!(
        (output.status.code(), text(&output.stdout)),
        (Some(0), "héllo\n")
    );
    // `--repair FILE` is not a value of `--repair`; a bad value and conflicting options
    // are usage errors.
    for args in [
        &["--repair=fix", s(&good)][..],
        &["--repair", "--all", s(&good)],
        &["--repair", "--json", s(&good)],
    ] {
        let output = run(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(output.stdout.is_empty());
    }
}

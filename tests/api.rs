//! The public API's behaviour beyond the validation answers: the traits and messages of
//! the error types, `io::Error` conversion, `from_utf8_mut`, and `Kernel`'s listing,
//! naming, and refusal to run a kernel the CPU lacks.

mod common;

use std::collections::HashSet;
use std::error::Error;
use std::fmt::{Debug, Display};
use std::hash::Hash;
use std::io;

use common::error_of;
use utf8check::{ErrorKind, Kernel, ParseKernelError, Utf8Error};

/// One input per error kind, and valid ones.
const SAMPLES: &[(&[u8], Option<ErrorKind>)] = &[
    (b"", None),
    (b"plain ASCII", None),
    ("grüße, мир, 世界, 😀".as_bytes(), None),
    (b"ab\x80cd", Some(ErrorKind::UnexpectedContinuation)),
    (b"ab\xC0\xAF", Some(ErrorKind::InvalidByte)),
    (b"\xF5\x80\x80\x80", Some(ErrorKind::InvalidByte)),
    (b"\xFF", Some(ErrorKind::InvalidByte)),
    (b"abc\xE2\x82", Some(ErrorKind::Truncated)),
    (b"\xF0\x9F\x98", Some(ErrorKind::Truncated)),
    (b"\xE0\x80\xAF", Some(ErrorKind::Overlong)),
    (b"\xF0\x8F\xBF\xBF", Some(ErrorKind::Overlong)),
    (b"x\xED\xA0\x80", Some(ErrorKind::Surrogate)),
    (b"\xF4\x90\x80\x80", Some(ErrorKind::TooLarge)),
    (b"\xE2\x82x", Some(ErrorKind::TooShort)),
    (b"\xC3(", Some(ErrorKind::TooShort)),
    (b"\xF0\x9F\x98\xC3\xA9", Some(ErrorKind::TooShort)),
];

#[test]
fn samples_have_the_documented_kinds() {
    for &(bytes, kind) in SAMPLES {
        assert_eq!(
            utf8check::from_utf8(bytes).err().map(|e| e.kind()),
            kind,
            "{bytes:02X?}"
        );
        common::check_against_std(bytes);
    }
}

fn assert_traits<T: Copy + Eq + Hash + Debug + Display + Error + Send + Sync + 'static>() {}

#[test]
fn error_types_implement_the_usual_traits() {
    assert_traits::<Utf8Error>();
    fn parse_error_traits<T: Clone + Eq + Debug + Display + Error + Send + Sync + 'static>() {}
    parse_error_traits::<ParseKernelError>();
    fn kind_traits<T: Copy + Eq + Hash + Debug + Display + Send + Sync + 'static>() {}
    kind_traits::<ErrorKind>();
    kind_traits::<Kernel>();

    let err = error_of(b"a\xFF");
    let copy = err;
    assert_eq!(err, copy);
    assert!(err.source().is_none());
    let other = error_of(b"\xFF");
    assert_ne!(err, other);
}

#[test]
fn display_is_std_message_plus_kind() {
    for &(bytes, _) in SAMPLES {
        let Err(std_err) = std::str::from_utf8(bytes) else {
            continue;
        };
        let err = error_of(bytes);
        let kind = err.kind();
        assert_eq!(
            err.to_string(),
            format!("{std_err} ({})", kind.description())
        );
        assert_eq!(kind.to_string(), kind.description());
    }
    let err = error_of(b"caf\xC3\xA9 \xFF!");
    assert_eq!(
        err.to_string(),
        "invalid utf-8 sequence of 1 bytes from index 6 (invalid byte)"
    );
    let err = error_of(b"abc\xE2\x82");
    assert_eq!(
        err.to_string(),
        "incomplete utf-8 byte sequence from index 3 (truncated sequence)"
    );
    // Every kind has its own description.
    let kinds: HashSet<&str> = SAMPLES
        .iter()
        .filter_map(|&(_, kind)| kind.map(ErrorKind::description))
        .collect();
    assert_eq!(kinds.len(), 7);
}

#[test]
fn converts_into_io_error() {
    let err = error_of(b"ab\xED\xA0\x80");
    let io_err = io::Error::from(err);
    assert_eq!(io_err.kind(), io::ErrorKind::InvalidData);
    assert_eq!(io_err.to_string(), err.to_string());
    let inner = io_err.get_ref().expect("an inner error");
    assert_eq!(inner.downcast_ref::<Utf8Error>(), Some(&err));
    let inner = io_err
        .into_inner()
        .unwrap()
        .downcast::<Utf8Error>()
        .unwrap();
    assert_eq!(*inner, err);
    // `?` converts too.
    fn read(bytes: &[u8]) -> io::Result<&str> {
        Ok(utf8check::from_utf8(bytes)?)
    }
    assert_eq!(read(b"ok").unwrap(), "ok");
    assert_eq!(
        read(b"\xC0").err().map(|e| e.kind()),
        Some(io::ErrorKind::InvalidData)
    );
}

#[test]
fn from_utf8_mut_agrees_and_allows_mutation() {
    for &(bytes, _) in SAMPLES {
        let mut copy = bytes.to_vec();
        let ptr = copy.as_ptr();
        match (
            utf8check::from_utf8_mut(&mut copy),
            utf8check::from_utf8(bytes),
        ) {
            (Ok(s), Ok(expected)) => {
                assert_eq!(s, expected);
                assert_eq!(s.as_ptr(), ptr);
                s.make_ascii_uppercase();
                assert_eq!(*s, expected.to_ascii_uppercase());
            }
            (Err(err), Err(expected)) => assert_eq!(err, expected),
            (got, expected) => panic!(
                "{bytes:02X?}: {:?} vs {:?}",
                got.map(|s| s.len()),
                expected.map(str::len)
            ),
        }
    }
    let mut bytes = *b"hello";
    utf8check::from_utf8_mut(&mut bytes)
        .unwrap()
        .make_ascii_uppercase();
    assert_eq!(&bytes, b"HELLO");
}

#[test]
fn is_valid_agrees_with_from_utf8() {
    for &(bytes, kind) in SAMPLES {
        assert_eq!(utf8check::is_valid(bytes), kind.is_none(), "{bytes:02X?}");
    }
}

/// Every kernel, supported here or not.
const ALL: [Kernel; 5] = [
    Kernel::Scalar,
    Kernel::Sse41,
    Kernel::Avx2,
    Kernel::Neon,
    Kernel::Avx512,
];

#[test]
fn available_kernels() {
    let available: Vec<Kernel> = Kernel::available().collect();
    assert!(available.contains(&Kernel::Scalar));
    assert!(available.contains(&Kernel::detected()));
    // The detected kernel is the fastest available: listed first.
    assert_eq!(available[0], Kernel::detected());
    for kernel in ALL {
        assert_eq!(
            available.contains(&kernel),
            kernel.is_supported(),
            "{kernel}"
        );
    }
    let unique: HashSet<Kernel> = available.iter().copied().collect();
    assert_eq!(unique.len(), available.len());
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    {
        assert_eq!(
            Kernel::Avx2.is_supported(),
            std::is_x86_feature_detected!("avx2")
                && std::is_x86_feature_detected!("bmi1")
                && std::is_x86_feature_detected!("popcnt")
        );
        assert_eq!(
            Kernel::Sse41.is_supported(),
            std::is_x86_feature_detected!("sse4.1") && std::is_x86_feature_detected!("ssse3")
        );
        // (Exactly when, with a compiler that has the AVX-512 intrinsics: the library's
        // own test, `cpu::tests`, sees how it was built.)
        if Kernel::Avx512.is_supported() {
            assert!(Kernel::Avx2.is_supported());
            assert!(std::is_x86_feature_detected!("avx512f"));
            assert!(std::is_x86_feature_detected!("avx512bw"));
            assert!(std::is_x86_feature_detected!("avx512vbmi"));
            assert!(std::is_x86_feature_detected!("avx512vbmi2"));
        }
        assert!(!Kernel::Neon.is_supported());
    }
    #[cfg(target_arch = "aarch64")]
    {
        assert_eq!(
            Kernel::Neon.is_supported(),
            std::arch::is_aarch64_feature_detected!("neon")
        );
        assert!(!Kernel::Avx2.is_supported() && !Kernel::Sse41.is_supported());
        assert!(!Kernel::Avx512.is_supported());
    }
}

#[test]
fn dispatch_agrees_with_the_detected_kernel() {
    let detected = Kernel::detected();
    let text = common::multilingual_text(1000, 7);
    let mut inputs: Vec<Vec<u8>> = SAMPLES.iter().map(|&(bytes, _)| bytes.to_vec()).collect();
    for len in (0..text.len()).step_by(37) {
        inputs.push(text.as_bytes()[..len].to_vec());
    }
    for input in &inputs {
        // Lengths, not the `&str`s: a wrongly accepted one is not UTF-8.
        assert_eq!(
            utf8check::from_utf8(input).map(str::len),
            detected.from_utf8(input).map(str::len),
            "{input:02X?}"
        );
        assert_eq!(utf8check::is_valid(input), detected.is_valid(input));
    }
}

#[test]
fn names_round_trip() {
    let names: Vec<&str> = ALL.iter().map(|kernel| kernel.name()).collect();
    assert_eq!(names, ["scalar", "sse4.1", "avx2", "neon", "avx512"]);
    for kernel in ALL {
        assert_eq!(kernel.name().parse::<Kernel>(), Ok(kernel));
        assert_eq!(kernel.to_string(), kernel.name());
    }
    assert_eq!("sse41".parse::<Kernel>(), Ok(Kernel::Sse41));
    for unknown in ["", "AVX2", "avx512f", "avx-512", "sse4.2", " scalar"] {
        assert!(unknown.parse::<Kernel>().is_err(), "{unknown:?}");
    }
    let message = "avx512f".parse::<Kernel>().unwrap_err().to_string();
    assert!(
        message.contains("scalar, sse4.1, avx2, avx512, neon"),
        "{message}"
    );
}

/// A kernel this CPU cannot run: NEON on x86, AVX2 everywhere else.
#[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
const UNSUPPORTED: Kernel = Kernel::Neon;
#[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
const UNSUPPORTED: Kernel = Kernel::Avx2;

#[test]
fn unsupported_kernel_is_not_available() {
    assert!(!UNSUPPORTED.is_supported());
    assert!(Kernel::available().all(|kernel| kernel != UNSUPPORTED));
}

#[test]
#[should_panic(expected = "kernel is not supported by this CPU")]
fn unsupported_kernel_from_utf8_panics() {
    let _ = UNSUPPORTED.from_utf8(b"abc");
}

#[test]
#[should_panic(expected = "kernel is not supported by this CPU")]
fn unsupported_kernel_is_valid_panics() {
    let _ = UNSUPPORTED.is_valid(b"abc");
}

#[test]
fn unsupported_kernel_panic_names_the_kernel() {
    let payload = std::panic::catch_unwind(|| UNSUPPORTED.is_valid(b"")).unwrap_err();
    let message = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap();
    assert!(message.contains(UNSUPPORTED.name()), "{message}");
    assert!(message.contains("Kernel::available()"), "{message}");
}

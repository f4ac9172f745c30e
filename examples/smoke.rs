use utf8check::Kernel;
fn main() {
    let mut seed = 0x1234_5678_9abc_def0u64;
    let mut rnd = || { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; seed };
    let pieces: Vec<&[u8]> = vec![b"a", "é".as_bytes(), "€".as_bytes(), "😀".as_bytes(), b"\x80", b"\xE0\x80", b"\xED\xA0", b"\xF4\x90", b"\xC0", b"\xFF", b"\xF0\x90\x80", b"\xE2\x82"];
    let mut n = 0;
    for _ in 0..300000 {
        let len = (rnd() % 200) as usize;
        let mut v = Vec::new();
        while v.len() < len {
            let r = rnd() % 100;
            let p = if r < 40 { pieces[0] } else if r < 60 { pieces[1] } else if r < 75 { pieces[2] } else if r < 90 { pieces[3] } else { pieces[(rnd() % pieces.len() as u64) as usize] };
            v.extend_from_slice(p);
        }
        let expect = std::str::from_utf8(&v).map_err(|e| (e.valid_up_to(), e.error_len()));
        for k in Kernel::available() {
            let got = k.from_utf8(&v).map_err(|e| (e.valid_up_to(), e.error_len()));
            assert_eq!(got, expect, "{k} {:02X?}", v);
            assert_eq!(k.is_valid(&v), expect.is_ok());
        }
        let got = utf8check::from_utf8(&v).map_err(|e| (e.valid_up_to(), e.error_len()));
        assert_eq!(got, expect);
        n += 1;
    }
    println!("ok {n} {:?}", Kernel::available().collect::<Vec<_>>());
}

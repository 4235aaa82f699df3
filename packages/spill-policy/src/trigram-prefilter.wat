;; The salient-line prefilter's inner loop (see trigram-prefilter.ts, which builds its tables
;; and reads its answer). It looks at the UTF-8 bytes of a block of text 16 at a time:
;;
;; 1. A SIMD nibble test (each byte's low and high nibble looked up in a 16-byte table, for
;;    the byte and the next two) finds the positions whose three bytes may start one of the
;;    triggers' fingerprints. Each table byte holds 8 buckets; a position is a candidate
;;    when one bucket accepts all three bytes.
;; 2. Each candidate's exact three bytes are then looked up in a 65,536-bit set of the
;;    fingerprints' trigrams, by a multiplicative hash: a collision only admits a line more.
;; 3. The line of every position that passes is written out once, with where it starts and
;;    the buckets its passing positions' three bytes passed the nibble test in: the line can
;;    hold only the triggers with a fingerprint in one of those buckets.
;;
;; Memory: the six nibble tables at 0 (lo0 hi0 lo1 hi1 lo2 hi2, 16 bytes each); the trigram
;; set at 128 (8 KiB); 16 bytes at 8320 where the nibble test's lanes are put to be read one
;; at a time; the text at `in`, followed by 32 bytes the scan zeroes itself; the answer at
;; `out`: for each admitted line, its index (line breaks before it in the text), the byte
;; offset where it starts (0 when it starts before the text) and its buckets, three u32 each.
(module
  (memory (export "memory") 1)
  (global $newlines (export "newlines") (mut i32) (i32.const 0))
  (func (export "scan") (param $in i32) (param $len i32) (param $out i32) (result i32)
    (local $i i32) (local $end i32) (local $at i32) (local $key i32)
    (local $v0 v128) (local $v1 v128) (local $v2 v128) (local $m v128) (local $low v128) (local $nl v128)
    (local $lo0 v128) (local $hi0 v128) (local $lo1 v128) (local $hi1 v128) (local $lo2 v128) (local $hi2 v128)
    (local $nlbits i32) (local $bits i32) (local $below i32) (local $w i32)
    (local $lines i32) (local $start i32) (local $hits i32) (local $last i32) (local $line i32) (local $buckets i32)
    (local.set $lo0 (v128.load (i32.const 0)))
    (local.set $hi0 (v128.load (i32.const 16)))
    (local.set $lo1 (v128.load (i32.const 32)))
    (local.set $hi1 (v128.load (i32.const 48)))
    (local.set $lo2 (v128.load (i32.const 64)))
    (local.set $hi2 (v128.load (i32.const 80)))
    (local.set $low (i8x16.splat (i32.const 15)))
    (local.set $nl (i8x16.splat (i32.const 10)))
    (local.set $i (local.get $in))
    (local.set $end (i32.add (local.get $in) (local.get $len)))
    ;; Loads past the end read zeros: no line break, and no byte a fingerprint starts with.
    (v128.store (local.get $end) (v128.const i64x2 0 0))
    (v128.store offset=16 (local.get $end) (v128.const i64x2 0 0))
    (local.set $last (i32.const -1))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $v0 (v128.load (local.get $i)))
        (local.set $v1 (v128.load offset=1 (local.get $i)))
        (local.set $v2 (v128.load offset=2 (local.get $i)))
        (local.set $nlbits (i8x16.bitmask (i8x16.eq (local.get $v0) (local.get $nl))))
        (local.set $m
          (v128.and
            (v128.and
              (v128.and
                (i8x16.swizzle (local.get $lo0) (v128.and (local.get $v0) (local.get $low)))
                (i8x16.swizzle (local.get $hi0) (v128.and (i16x8.shr_u (local.get $v0) (i32.const 4)) (local.get $low))))
              (v128.and
                (i8x16.swizzle (local.get $lo1) (v128.and (local.get $v1) (local.get $low)))
                (i8x16.swizzle (local.get $hi1) (v128.and (i16x8.shr_u (local.get $v1) (i32.const 4)) (local.get $low)))))
            (v128.and
              (i8x16.swizzle (local.get $lo2) (v128.and (local.get $v2) (local.get $low)))
              (i8x16.swizzle (local.get $hi2) (v128.and (i16x8.shr_u (local.get $v2) (i32.const 4)) (local.get $low))))))
        (if (v128.any_true (local.get $m))
          (then
            (local.set $bits (i8x16.bitmask (i8x16.ne (local.get $m) (v128.const i64x2 0 0))))
            (v128.store (i32.const 8320) (local.get $m))
            ;; Positions at or past the end are padding.
            (local.set $w (i32.sub (local.get $end) (local.get $i)))
            (if (i32.lt_u (local.get $w) (i32.const 16))
              (then (local.set $bits (i32.and (local.get $bits) (i32.sub (i32.shl (i32.const 1) (local.get $w)) (i32.const 1))))))
            (block $hitsDone
              (loop $hit
                (br_if $hitsDone (i32.eqz (local.get $bits)))
                (local.set $at (i32.add (local.get $i) (i32.ctz (local.get $bits))))
                (local.set $key (i32.and (i32.load (local.get $at)) (i32.const 0xffffff)))
                (local.set $key (i32.shr_u (i32.mul (local.get $key) (i32.const 0x9e3779b1)) (i32.const 16)))
                (if (i32.and
                      (i32.load8_u offset=128 (i32.shr_u (local.get $key) (i32.const 3)))
                      (i32.shl (i32.const 1) (i32.and (local.get $key) (i32.const 7))))
                  (then
                    (local.set $below (i32.and (local.get $nlbits) (i32.sub (i32.shl (i32.const 1) (i32.ctz (local.get $bits))) (i32.const 1))))
                    (local.set $line (i32.add (local.get $lines) (i32.popcnt (local.get $below))))
                    (local.set $buckets (i32.load8_u offset=8320 (i32.ctz (local.get $bits))))
                    (if (i32.ne (local.get $line) (local.get $last))
                      (then
                        (i32.store (local.get $out) (local.get $line))
                        (i32.store offset=4 (local.get $out)
                          (if (result i32) (local.get $below)
                            (then (i32.sub (i32.add (local.get $i) (i32.sub (i32.const 32) (i32.clz (local.get $below)))) (local.get $in)))
                            (else (local.get $start))))
                        (i32.store offset=8 (local.get $out) (local.get $buckets))
                        (local.set $out (i32.add (local.get $out) (i32.const 12)))
                        (local.set $hits (i32.add (local.get $hits) (i32.const 1)))
                        (local.set $last (local.get $line)))
                      (else
                        ;; Another position of the same line: its buckets join the line's.
                        (i32.store (i32.sub (local.get $out) (i32.const 4))
                          (i32.or (i32.load (i32.sub (local.get $out) (i32.const 4))) (local.get $buckets)))))))
                (local.set $bits (i32.and (local.get $bits) (i32.sub (local.get $bits) (i32.const 1))))
                (br $hit)))))
        (if (local.get $nlbits)
          (then
            (local.set $lines (i32.add (local.get $lines) (i32.popcnt (local.get $nlbits))))
            (local.set $start (i32.sub (i32.add (local.get $i) (i32.sub (i32.const 32) (i32.clz (local.get $nlbits)))) (local.get $in)))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $next)))
    (global.set $newlines (local.get $lines))
    (local.get $hits)))

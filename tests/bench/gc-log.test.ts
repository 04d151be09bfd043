// bench/gc.ts reads JavaScriptCore's collection log (BUN_JSC_logGC=1); these are lines Bun 1.4.5
// printed under load. The interleaved pair is verbatim from a Relay process whose writer thread
// and main thread collected at once (the writer's record ends inside the main thread's); the main
// thread's continuation after it is written in the same form.
import { expect, test } from "bun:test";
import { parseGcLog, summarise } from "../../bench/lib/gc-log.ts";

const SINGLE = `[GC<0x44f75c18118>: starting 0.058377ms]
[GC<0x44f75c18118>: START M 1536kb => EdenCollection, a=0kb hf=0.000 mu=0.600 v=0kb (C:0 M:0 P1:0) o=0 b=0 i#1:N<CsMsrShDMsm(0)SrbBcs> 178+0 v=557kb (C:399 M:0 P1:158) o=1 b=0 i#2:N<WsOJw>Pbc 1+0 v=560kb (C:401 M:0 P1:158) o=1 b=0 i#3:P<OWsJwMsrShCsSrbDMsm(0)BcsCbDomo>Pbc => 774kb, p=2.380911ms (max 2.380911), cycle 2.347872ms END]
GC END!
[GC<0x44f75c18118>: epilogue 0.331332ms]
[GC<0x44f75c18118>: START M 1750kb => FullCollection, a=0kb hf=0.000 mu=0.600 v=0kb (C:0 M:0 P1:0) o=0 b=14 i#1:N<CsMsrShDMsm(0)SrbBcs> 445+0 p=0.990620ms (max 2.380911)...]
[GC<0x44f75c18118>: M a=0kb hf=0.000 mu=0.600 v=556kb (C:293 M:0 P1:262) o=1 b=0 i#2:N<WsOJw>Pbc 1+0 v=559kb (C:296 M:0 P1:262) o=1 b=0 i#3:P<OWsJwMsrShSrbCsDMsm(0)BcsCbDomo>Pbc => 773kb, p=0.528884ms (max 2.380911), cycle 1.753110ms END]
GC END!
`;

const INTERLEAVED = `[GC<0x28123000118>: START M 5997kb => EdenCollection, a=0kb hf=0.000 mu=0.600 v=0kb (C:0 M:0 P1:0) o=1 b=7 i#1:N<CsMsrShDMsm(10)SrbBcs> 0+10 v=212kb (C:212 M:0 P1:0) o=1 b=7 i#2:N<WsOJw>PbcRequesting GC because bytes allocated this cycle: 18034202 exceed bytes allowed: 18031127 normal bytes: 18034202 oversized bytes: 0 last oversized: 0
 0+0 v=212kb (C:212 M:0 P1:0) o=1 b=7 i#3:P<[GC<0x2811a19c118>: START M 39211kb => EdenCollection, a=0kb hf=0.000 mu=0.600 v=0kb (C:0 M:0 P1:0) o=12487 b=322 i#1:N<CsMsm(0)CsMsrShMsrShSrbDBcsCbDomoJwOWs>Pbc DMsm(339)SrbBcs> 814+339 => 2435kb, p=0.929178ms (max 11.533726), cycle 0.903691ms END]
 p=1.023000ms (max 11.533726)...]
[GC<0x2811a19c118>: M a=41kb hf=0.006 mu=0.596 v=473kb (C:257 M:0 P1:215) o=14210 b=318 0+318 v=789kb (C:520 M:0 P1:269) o=14385 b=318 i#2:N<WsOJw>Pbc 434+318 => 24119kb, p=9.500000ms (max 11.533726), cycle 12.172254ms END]
GC END!
`;

test("a one-increment young collection and a two-increment full one", () => {
  const cs = parseGcLog(SINGLE);
  expect(cs).toHaveLength(2);
  expect(cs[0]).toEqual({ heap: "0x44f75c18118", kind: "Eden", beforeKb: 1536, afterKb: 774, pauseMs: 2.380911 });
  expect(cs[1]!.kind).toBe("Full");
  expect(cs[1]!.afterKb).toBe(773);
  expect(cs[1]!.pauseMs).toBeCloseTo(0.99062 + 0.528884, 6);
});

test("two heaps' records cut into each other are told apart", () => {
  const cs = parseGcLog(INTERLEAVED);
  const writer = cs.find((c) => c.heap === "0x28123000118")!;
  const main = cs.find((c) => c.heap === "0x2811a19c118")!;
  expect(writer).toEqual({ heap: "0x28123000118", kind: "Eden", beforeKb: 5997, afterKb: 2435, pauseMs: 0.929178 });
  expect(main.beforeKb).toBe(39211);
  expect(main.afterKb).toBe(24119);
  expect(main.pauseMs).toBeCloseTo(1.023 + 9.5, 6);
});

test("the summary puts the heap with the most pause first", () => {
  const [first, second] = summarise(parseGcLog(SINGLE + INTERLEAVED));
  expect(first!.heap).toBe("0x2811a19c118");
  expect(first!.eden).toBe(1);
  expect(first!.maxPauseMs).toBeCloseTo(10.523, 6);
  expect(second!.heap).toBe("0x44f75c18118");
  expect(second!).toMatchObject({ eden: 1, full: 1 });
  expect(second!.pauseMs).toBeCloseTo(2.380911 + 0.99062 + 0.528884, 6);
  expect(second!.meanEdenPauseMs).toBeCloseTo(2.380911, 6);
});

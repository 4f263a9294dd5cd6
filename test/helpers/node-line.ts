// PLANT_STORE_TEST_LINE_INDEPENDENT=0 (CI's Node 22 and 26 legs): a check whose outcome the Node line running the
// tests does not decide skips, saying why; it ran on Node 24 in the same CI run (.ci/run says which and why).

/** The skip reason for a check `why` calls line-independent, when this run repeats the suite on another Node line. */
export function lineIndependent(why: string): string | false {
  return process.env.PLANT_STORE_TEST_LINE_INDEPENDENT === '0' ? `PLANT_STORE_TEST_LINE_INDEPENDENT=0: ${why}; it ran on Node 24` : false;
}

// Types of scripts/golden.mjs, for the tests that read the goldens (test/helpers/experiments.ts).

export declare const ROOT: string;
export declare const GOLDEN_DIR: string;
export declare const EXPERIMENTS_DIR: string;

/** Size and SHA-256 of one file a run writes. */
export interface FileDigest {
  readonly bytes: number;
  readonly sha256: string;
}

export interface Golden {
  /** The scenario file, relative to docs/experiments/. */
  readonly scenario: string;
  readonly summary: unknown;
  readonly flows: readonly Record<string, unknown>[];
  readonly files: Readonly<Record<string, FileDigest>>;
}

export declare function listGoldens(dir?: string): { name: string; file: string }[];
export declare function goldenFile(name: string, dir?: string): string;
export declare function readGolden(file: string): Golden;
export declare function goldenText(golden: Golden): string;
export declare function digest(path: string): FileDigest;
export declare function goldenOfRun(scenario: string, outDir: string): Golden;
export declare function writeGolden(name: string, golden: Golden, dir?: string): string;
export declare function firstDifference(a: unknown, b: unknown, path?: string): string | null;
export declare function compareRun(want: Golden, outDir: string): string[];

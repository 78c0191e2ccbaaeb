// Compiles and runs programs copied from the book, in one temporary Cargo
// project with the crates the book's blocks may use (the workspace's
// [workspace.dependencies]) at the versions the workspace's Cargo.lock pins,
// so that everything resolves offline. Each program is a bin of its own;
// CARGO_TARGET_DIR is shared between runs so the dependencies compile once.
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO } from './book.js';

const run = promisify(execFile);
const TARGET_DIR = path.join(REPO, 'target/browser-copy');

const MANIFEST = `[package]
name = "copied-from-the-book"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
futures = "0.3.31"
rustix = { version = "1.1", features = ["event", "fs"] }
`;

let project = null;

function projectDir() {
    if (!project) {
        // Outside the repository, so that neither its workspace nor its
        // .cargo/config.toml applies.
        project = mkdtempSync(path.join(os.tmpdir(), 'asyncbook-copies-'));
        mkdirSync(path.join(project, 'src/bin'), { recursive: true });
        writeFileSync(path.join(project, 'Cargo.toml'), MANIFEST);
        copyFileSync(path.join(REPO, 'Cargo.lock'), path.join(project, 'Cargo.lock'));
    }
    return project;
}

export function removeProject() {
    if (project) {
        rmSync(project, { recursive: true, force: true });
        project = null;
    }
}

// Builds `source` as bin `name`; resolves to the executable's path, or
// rejects with cargo's error output. A source identical to the last build's
// is not rewritten, so building it again is a no-op.
export async function buildProgram(name, source) {
    const file = path.join(projectDir(), 'src/bin', `${name}.rs`);
    if (!existsSync(file) || readFileSync(file, 'utf8') !== source) {
        writeFileSync(file, source);
    }
    try {
        await run('cargo', ['build', '--offline', '--quiet', '--bin', name], {
            cwd: projectDir(),
            env: { ...process.env, CARGO_TARGET_DIR: TARGET_DIR },
            maxBuffer: 16 << 20,
        });
    } catch (err) {
        throw new Error(`cargo build of ${name} failed:\n${err.stderr || err.message}`);
    }
    return path.join(TARGET_DIR, 'debug', name);
}

// Runs a built program; resolves to its standard output.
export async function runProgram(executable) {
    const { stdout } = await run(executable, [], { timeout: 30_000, maxBuffer: 16 << 20 });
    return stdout;
}

// The book's recorded output of example `name` (listings/output/NAME.txt), or
// null if it has none.
export function recordedOutput(name) {
    const file = path.join(REPO, 'listings/output', `${name}.txt`);
    return existsSync(file) ? readFileSync(file, 'utf8') : null;
}

// Durations differ from run to run ("1.000579976s", "12ms", "3µs").
export const normaliseDurations = text => text.replace(/\d+(\.\d+)?(ms|s|µs)/g, '<duration>');

// A tiny static file server for the built book (book/html), so that the same
// tests run against what `mdbook build` wrote as against `mdbook serve`.
// Files are sent as bytes (Pagefind's index and wasm are binary) with the
// content types a web host would give them; Chromium refuses a module script
// or a stylesheet sent with the wrong one.
import { createServer } from 'node:http';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';

const TYPES = {
    '.html': 'text/html; charset=utf-8',
    '.js': 'text/javascript; charset=utf-8',
    '.mjs': 'text/javascript; charset=utf-8',
    '.css': 'text/css; charset=utf-8',
    '.json': 'application/json',
    '.svg': 'image/svg+xml',
    '.png': 'image/png',
    '.ico': 'image/x-icon',
    '.woff': 'font/woff',
    '.woff2': 'font/woff2',
    '.ttf': 'font/ttf',
    '.txt': 'text/plain; charset=utf-8',
    '.wasm': 'application/wasm',
};
// Pagefind's own files (.pf_meta, .pf_index, .pf_fragment, wasm.*.pagefind)
// are gzipped data that pagefind.js fetches and unpacks itself.
const BINARY = 'application/octet-stream';

export function contentType(file) {
    return TYPES[path.extname(file).toLowerCase()] ?? BINARY;
}

// Resolves a request path inside `root`, or null if it would leave it.
function fileFor(root, urlPath) {
    let decoded;
    try {
        decoded = decodeURIComponent(urlPath);
    } catch {
        return null;
    }
    const file = path.join(root, path.normalize(decoded));
    return file === root || file.startsWith(root + path.sep) ? file : null;
}

// Starts serving `root` on 127.0.0.1 at a free port; resolves to
// { url, close() }.
export async function serveStatic(root) {
    root = path.resolve(root);
    const server = createServer(async (req, res) => {
        const { pathname } = new URL(req.url, 'http://localhost');
        let file = fileFor(root, pathname);
        let info = file && await stat(file).catch(() => null);
        if (info?.isDirectory()) {
            file = path.join(file, 'index.html');
            info = await stat(file).catch(() => null);
        }
        if (!info?.isFile()) {
            res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
            res.end('not found\n');
            return;
        }
        res.writeHead(200, {
            'content-type': contentType(file),
            'content-length': info.size,
        });
        if (req.method === 'HEAD') {
            res.end();
            return;
        }
        createReadStream(file).pipe(res);
    });
    await new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', resolve);
    });
    return {
        url: `http://127.0.0.1:${server.address().port}/`,
        close: () => new Promise(resolve => {
            server.closeAllConnections();
            server.close(resolve);
        }),
    };
}

// share.js: the source and the command in the address's fragment,
// compressed: JSON, deflated (CompressionStream), in base64url. Opening
// such a link restores both.
async function pipe(bytes, stream) {
  const out = new Blob([bytes]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(out).arrayBuffer());
}

function toBase64url(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64url(text) {
  const s = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) bytes[i] = s.charCodeAt(i);
  return bytes;
}

// {file, source, command} -> "#s=..."
export async function encodeState(state) {
  const json = new TextEncoder().encode(JSON.stringify({ v: 1, ...state }));
  return `#s=${toBase64url(await pipe(json, new CompressionStream('deflate')))}`;
}

// "#s=..." -> {file, source, command}, or null when it is not one
export async function decodeState(hash) {
  const m = /^#s=([A-Za-z0-9_-]+)$/.exec(hash || '');
  if (!m) return null;
  try {
    const json = await pipe(fromBase64url(m[1]), new DecompressionStream('deflate'));
    const state = JSON.parse(new TextDecoder().decode(json));
    if (typeof state.source !== 'string' || typeof state.command !== 'string' || typeof state.file !== 'string')
      return null;
    return state;
  } catch {
    return null;
  }
}

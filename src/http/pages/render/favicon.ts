/** Browsers ask every host for it at the root, whatever the page says. */
export const FAVICON_PATH = '/favicon.ico';

const SIZE = 16;
const GREEN = [0x37, 0x7f, 0x1a, 0xff]; // #1a7f37 as BGRA
const CLEAR = [0, 0, 0, 0];

/**
 * A 16×16 icon (ICO holding one 32-bit bitmap): a green dot, drawn here rather
 * than kept as a binary file. Every browser reads ICO at /favicon.ico.
 */
function drawFavicon(): Buffer {
  const header = Buffer.alloc(6 + 16 + 40);
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(1, 4); // one image
  const pixels = Buffer.alloc(SIZE * SIZE * 4);
  const mask = Buffer.alloc(SIZE * 4); // rows of 32 bits; all 0: the alpha channel decides
  const centre = (SIZE - 1) / 2;
  for (let row = 0; row < SIZE; row++) {
    for (let column = 0; column < SIZE; column++) {
      const inside = (row - centre) ** 2 + (column - centre) ** 2 <= 7 ** 2;
      // Bitmaps are stored bottom row first; the dot is symmetric either way.
      Buffer.from(inside ? GREEN : CLEAR).copy(pixels, (row * SIZE + column) * 4);
    }
  }
  const imageBytes = 40 + pixels.length + mask.length;
  // The directory entry.
  header.writeUInt8(SIZE, 6);
  header.writeUInt8(SIZE, 7);
  header.writeUInt16LE(1, 10); // planes
  header.writeUInt16LE(32, 12); // bits per pixel
  header.writeUInt32LE(imageBytes, 14);
  header.writeUInt32LE(22, 18); // offset of the image
  // BITMAPINFOHEADER: the height counts the colour rows and the mask rows.
  header.writeUInt32LE(40, 22);
  header.writeInt32LE(SIZE, 26);
  header.writeInt32LE(SIZE * 2, 30);
  header.writeUInt16LE(1, 34);
  header.writeUInt16LE(32, 36);
  header.writeUInt32LE(pixels.length + mask.length, 42);
  return Buffer.concat([header, pixels, mask]);
}

export const FAVICON: Buffer = drawFavicon();

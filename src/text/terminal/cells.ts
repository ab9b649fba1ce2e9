/**
 * What the emulator's screen is made of, as the pane and the painter draw it: runs of cells
 * with one style. Apart from screen.ts so that drawing code can be loaded without the
 * emulator (which loads on the first shell opened).
 */

/** A colour: -1 the terminal's default, 0–255 a palette index, else 0x1000000 | 0xRRGGBB. */
export type Colour = number;
export const DEFAULT_COLOUR = -1;
export const RGB = 0x1000000;

export const ATTR = {
  bold: 1,
  dim: 2,
  italic: 4,
  underline: 8,
  inverse: 16,
  strike: 32,
  invisible: 64,
} as const;

/** A run of cells with one style. */
export interface Segment {
  text: string;
  fg: Colour;
  bg: Colour;
  attrs: number;
}

/** A colour as its 24-bit value, or null for a palette index or the default. */
export function rgbOf(c: Colour): number | null {
  return c >= RGB ? c & 0xffffff : null;
}

/** A 1×1 transparent PNG. */
export const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/** A minimal WAV file: RIFF header, 8 kHz mono 8-bit, two samples. */
export const WAV_BASE64 = Buffer.concat([
  Buffer.from('RIFF'),
  Buffer.from([0x26, 0, 0, 0]),
  Buffer.from('WAVEfmt '),
  Buffer.from([16, 0, 0, 0, 1, 0, 1, 0, 0x40, 0x1f, 0, 0, 0x40, 0x1f, 0, 0, 1, 0, 8, 0]),
  Buffer.from('data'),
  Buffer.from([2, 0, 0, 0, 0x80, 0x80]),
]).toString('base64');

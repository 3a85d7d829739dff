// AudioWorklet: microphone float samples at the context's rate → 16 kHz mono
// PCM s16le, posted to the page in 100 ms frames (ArrayBuffer, transferred).
// Resampling is a windowed-sinc low-pass (cut-off 7.2 kHz) evaluated at each
// output instant, so that nothing above 8 kHz aliases into the speech band.
const OUT_RATE = 16000;
const ZERO_CROSSINGS = 8;

class PcmCapture extends AudioWorkletProcessor {
  constructor() {
    super();
    this.step = sampleRate / OUT_RATE; // input samples per output sample
    // Normalised cut-off (cycles per input sample); below both Nyquists.
    this.fc = Math.min(0.45 * OUT_RATE, 0.45 * sampleRate) / sampleRate;
    this.half = Math.ceil(ZERO_CROSSINGS / (2 * this.fc)); // kernel half-width in input samples
    this.pending = new Float32Array(this.half); // history (silence at first)
    this.pos = this.half; // next output instant, in pending's indices
    this.out = new Int16Array(1600);
    this.outLen = 0;
  }

  kernel(d) {
    // Low-pass sinc times a Blackman window over |d| < half.
    const x = 2 * this.fc * d;
    const sinc = x === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x);
    const w = 0.42 + 0.5 * Math.cos(Math.PI * d / this.half) + 0.08 * Math.cos(2 * Math.PI * d / this.half);
    return sinc * w;
  }

  process(inputs) {
    const input = inputs[0];
    if (!input || input.length === 0 || !input[0]) return true;
    const n = input[0].length;
    const buf = new Float32Array(this.pending.length + n);
    buf.set(this.pending);
    const off = this.pending.length;
    for (let c = 0; c < input.length; c++) {
      const ch = input[c];
      for (let i = 0; i < n; i++) buf[off + i] += ch[i] / input.length;
    }
    let pos = this.pos;
    const half = this.half;
    while (pos + half < buf.length) {
      const base = Math.floor(pos);
      let acc = 0;
      let norm = 0;
      for (let i = base - half + 1; i <= base + half; i++) {
        const k = this.kernel(pos - i);
        acc += buf[i] * k;
        norm += k;
      }
      const s = Math.max(-1, Math.min(1, norm ? acc / norm : 0));
      this.out[this.outLen++] = s < 0 ? s * 0x8000 : s * 0x7fff;
      if (this.outLen === this.out.length) {
        const frame = this.out.slice(0).buffer;
        this.port.postMessage(frame, [frame]);
        this.outLen = 0;
      }
      pos += this.step;
    }
    // Keep the history the next output needs.
    const keep = Math.max(0, Math.floor(pos) - half);
    this.pending = buf.slice(keep);
    this.pos = pos - keep;
    return true;
  }
}

registerProcessor('pcm-capture', PcmCapture);

// The service's time as the page reckons it, for the clocks' deadlines: the page's own clock,
// unless the service's answers (their `Date` header) show it to be plainly wrong. The header
// counts whole seconds, so a difference within its rounding is no evidence and is ignored:
// the page keeps its own clock, and a deadline that looks passed is read again (countdown.js).

/** Beyond this, the page's clock and the service's disagree by more than the header's rounding. */
const NOISE_MS = 2000;
let offset = 0;

/** An answer's `Date` header, for a request sent at `sent` and answered at `received` (the page's ms). */
export function heard(date, sent, received) {
  const said = date ? Date.parse(date) : Number.NaN;
  if (!Number.isFinite(said)) return;
  // The header is the second the answer was made in: somewhere in the second after `said`.
  const seen = said + 500 - (sent + received) / 2;
  // Only evidence beyond the rounding moves the reckoning, so that it does not flap.
  if (Math.abs(seen - offset) > NOISE_MS) offset = Math.abs(seen) > NOISE_MS ? seen : 0;
}

/** Now, in the service's ms since the epoch. */
export const serviceNow = () => Date.now() + offset;

import type { Lint } from './lint';

/** Serial number rules for INTEGER content octets (RFC 5280 4.1.2.2, CA/B BR 7.1). */
export function serialLints<View>(serialOf: (view: View) => Uint8Array, what: string): Lint<View>[] {
  return [
    {
      name: `e_${what}_serial_number_not_positive`,
      source: 'RFC 5280 4.1.2.2',
      check: (view) => {
        const serial = serialOf(view);
        if (serial.length > 0 && serial[0] & 0x80) return 'the serial number is negative';
        if (serial.every((octet) => octet === 0)) return 'the serial number is zero';
        return undefined;
      },
    },
    {
      name: `e_${what}_serial_number_longer_than_20_octets`,
      source: 'RFC 5280 4.1.2.2',
      check: (view) => {
        const length = serialOf(view).length;
        return length > 20 ? `the serial number has ${length} octets; at most 20 are allowed` : undefined;
      },
    },
    {
      name: `e_${what}_serial_number_low_entropy`,
      source: 'CA/B BR 7.1 (64 bits from a CSPRNG)',
      check: (view) => {
        const bits = significantBits(serialOf(view));
        return bits < 64
          ? `the serial number has ${bits} significant bits; at least 64 are needed`
          : undefined;
      },
    },
  ];
}

function significantBits(octets: Uint8Array): number {
  let index = 0;
  while (index < octets.length && octets[index] === 0) index++;
  if (index === octets.length) return 0;
  return (octets.length - index - 1) * 8 + (32 - Math.clz32(octets[index]));
}

import { type DerElement, DerReader } from '../der-reader';
import { TAG } from '../der-writer';
import { oidText } from './oid';

/** One AttributeTypeAndValue of a Name: its type, the string type (tag) and the raw value octets. */
export interface NameAttribute {
  type: string;
  tag: number;
  value: Uint8Array;
}

/** Name ::= SEQUENCE OF RelativeDistinguishedName (SET OF AttributeTypeAndValue), RFC 5280 4.1.2.4. */
export function readName(reader: DerReader, name: DerElement): NameAttribute[][] {
  const rdns = reader.inside(name);
  const result: NameAttribute[][] = [];
  while (!rdns.atEnd) {
    const rdn = rdns.inside(rdns.read('RelativeDistinguishedName', TAG.set));
    const attributes: NameAttribute[] = [];
    while (!rdn.atEnd) {
      const pair = rdn.inside(rdn.read('AttributeTypeAndValue', TAG.sequence));
      const type = oidText(pair.contents(pair.read('type', TAG.objectIdentifier)));
      const value = pair.read('value');
      attributes.push({ type, tag: value.tag, value: pair.contents(value) });
    }
    result.push(attributes);
  }
  return result;
}

/** The text of the first attribute of `type`, or undefined. */
export function attributeText(name: NameAttribute[][], type: string): string | undefined {
  for (const rdn of name) {
    for (const attribute of rdn) {
      if (attribute.type === type) return Buffer.from(attribute.value).toString('utf8');
    }
  }
  return undefined;
}

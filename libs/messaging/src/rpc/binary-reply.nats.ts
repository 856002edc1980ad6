import { Deserializer, IncomingResponse, Serializer } from '@nestjs/microservices';
import { IncomingResponseDeserializer } from '@nestjs/microservices/deserializers/incoming-response.deserializer';
import { MALFORMED_REPLY, decodeMessage, encodeMessage, replyValue, withReplyValue } from './binary-reply';

type Packet = { response?: unknown } & Record<string, unknown>;

const packetValue = (packet: unknown) => replyValue((packet as Packet | null)?.response);
const withPacketValue = (packet: Packet, value: unknown) => ({
  ...packet,
  response: withReplyValue(packet.response, value),
});

/** A service's answers on NATS: JSON, or framed when the reply value carries bytes (binary-reply.ts). */
export class BinaryReplySerializer implements Serializer<Packet, { data: Uint8Array }> {
  serialize(packet: Packet): { data: Uint8Array } {
    return { data: encodeMessage(packet, packetValue, withPacketValue) };
  }
}

/**
 * The client's reading of an answer. A message that does not read is the request's error (the
 * caller gets a CaError), never an exception in the subscription, which nothing would catch.
 */
export class BinaryReplyDeserializer
  extends IncomingResponseDeserializer
  implements Deserializer<Uint8Array, IncomingResponse>
{
  override deserialize(data: Uint8Array): IncomingResponse {
    const decoded = decodeMessage(data, packetValue);
    if ('error' in decoded) return { id: '', err: MALFORMED_REPLY, isDisposed: true };
    return super.deserialize(decoded.message) as IncomingResponse;
  }
}

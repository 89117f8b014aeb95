package narwhal.spi;

import narwhal.proto.v1.StreamEvent;

/** Turns one decode stream's SSE event data into {@link StreamEvent}s. One instance per stream. */
public interface DecodeEventDecoder {

  /**
   * Classifies one event: {@code done} for the end marker, {@code error} for an error object,
   * {@code token} when the chunk carries generated output, {@code metadata} otherwise.
   *
   * @throws MalformedEventException when the data is not a valid event of this dialect
   */
  StreamEvent decode(String data) throws MalformedEventException;
}

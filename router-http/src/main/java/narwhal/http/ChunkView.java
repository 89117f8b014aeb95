package narwhal.http;

import narwhal.proto.v1.MetadataChunk;
import narwhal.proto.v1.StreamEvent;
import narwhal.proto.v1.TokenDelta;
import narwhal.proto.v1.Usage;
import org.jspecify.annotations.Nullable;

/**
 * The fields a {@link TokenDelta} and a {@link MetadataChunk} share, so one code path relays or
 * assembles both.
 *
 * @param isToken true for generated output, false for a metadata chunk
 * @param text generated text (empty for metadata)
 * @param finishReason the finish reason, or null when the chunk sets none
 * @param stopReasonJson the stop reason as JSON text, or empty
 * @param usage the usage the chunk carries, or null
 * @param chunkJson the engine's OpenAI chunk, or empty
 * @param role the chat delta's role, or empty
 */
record ChunkView(
    boolean isToken,
    int index,
    String text,
    @Nullable String finishReason,
    String stopReasonJson,
    @Nullable Usage usage,
    String chunkJson,
    String role) {

  /** The view of a token or metadata event; null for any other kind. */
  static @Nullable ChunkView of(StreamEvent event) {
    switch (event.getKindCase()) {
      case TOKEN:
        TokenDelta t = event.getToken();
        return new ChunkView(
            true,
            t.getIndex(),
            t.getText(),
            t.hasFinishReason() ? t.getFinishReason() : null,
            t.getStopReasonJson(),
            t.hasUsage() ? t.getUsage() : null,
            t.getChunkJson(),
            t.getRole());
      case METADATA:
        MetadataChunk m = event.getMetadata();
        return new ChunkView(
            false,
            m.getIndex(),
            "",
            m.hasFinishReason() ? m.getFinishReason() : null,
            m.getStopReasonJson(),
            m.hasUsage() ? m.getUsage() : null,
            m.getChunkJson(),
            m.getRole());
      default:
        return null;
    }
  }
}

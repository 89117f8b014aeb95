package narwhal.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import narwhal.api.ResponseStart;
import narwhal.openai.CompactJson;
import narwhal.openai.Json;
import narwhal.proto.v1.Route;
import org.jspecify.annotations.Nullable;

/**
 * Turns relayed events into SSE frames ({@code data: <json>\n\n}).
 *
 * <p>The engine's chunk is relayed with every field it carried, re-stamped with the router's
 * identity: {@code id} becomes {@code cmpl-<rid>} / {@code chatcmpl-<rid>}, {@code model} the
 * served model and {@code created} the response's timestamp (each replaced where the chunk has it,
 * appended in that order where it does not), so a client sees one consistent response however
 * many engine attempts were made. Token-id fields, which the router asks engines for, are removed
 * unless the client asked for them with {@code return_token_ids}. An event without (readable)
 * chunk JSON is synthesised from its typed fields.
 *
 * <p>Every token goes through here, so the common case avoids JSON trees: the decoder hands over
 * chunks in canonical compact form, which {@link CompactJson} indexes in one pass, and the frame
 * is spliced from the chunk's own spans and the three stamped members, pre-rendered once per
 * response, straight into a pooled buffer. Any chunk the index refuses takes the tree path, whose
 * output the splice reproduces byte for byte.
 */
final class SseChunkWriter {

  private static final byte[] DATA = "data: ".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] DONE = "data: [DONE]\n\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] COMMA = {','};
  private static final byte[] END = {'}', '\n', '\n'};
  /** Room for a chunk-size line: up to six hex digits (frames stay far below 16 MiB) and CRLF. */
  private static final int CHUNK_HEAD_ROOM = 8;

  private final Route route;
  private final ResponseStart start;
  private final boolean keepTokenIds;
  /** {@code "id":"cmpl-<rid>"}, {@code "model":<served>} and {@code "created":<t>}, as Jackson writes them. */
  private final byte[] idMember;
  private final byte[] modelMember;
  private final byte[] createdMember;
  /** The plain-token frame around the index and the text; rendered on first use. */
  private byte @Nullable [] plainPrefix;
  private byte @Nullable [] plainTextOpen;
  private byte @Nullable [] plainSuffix;

  SseChunkWriter(Route route, ResponseStart start, boolean keepTokenIds) {
    this.route = route;
    this.start = start;
    this.keepTokenIds = keepTokenIds;
    this.idMember = member("id", OpenAiChunks.responseId(route, start.requestId()));
    this.modelMember = member("model", start.model());
    this.createdMember = ("\"created\":" + start.createdEpochSeconds()).getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[] member(String name, String value) {
    try {
      // The byte writer, as the tree path uses: it spells characters beyond the BMP as escapes.
      byte[] quoted = Json.mapper().writeValueAsBytes(value);
      return concat(("\"" + name + "\":").getBytes(StandardCharsets.US_ASCII), quoted);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The frame of one event, in a buffer from {@code alloc} that the caller owns. */
  ByteBuf frame(ChunkView chunk, ByteBufAllocator alloc) {
    String json = chunk.chunkJson();
    if (json.isEmpty() && isPlainToken(chunk)) {
      return framePlainToken(chunk, alloc);
    }
    CompactJson index = CompactJson.forThisThread();
    if (json.isEmpty() || !index.index(json)) {
      byte[] framed = frameWithTree(chunk);
      return allocate(alloc, framed.length).writeBytes(framed);
    }
    // Room for the chunk (ASCII in the common case), the stamped members and the framing; the
    // buffer grows if multi-byte text needs more.
    ByteBuf out = allocate(alloc, json.length() + idMember.length + modelMember.length + createdMember.length + 16);
    out.writeBytes(DATA);
    writeStamped(index, out);
    out.writeByte('\n').writeByte('\n');
    return out;
  }

  /**
   * A frame buffer with room before it for an HTTP/1.1 chunk-size line and after it for the
   * chunk's closing CRLF, so {@link #toHttpChunk} frames it in place: the client gets one buffer
   * (one iovec) per token instead of the codec's three.
   */
  private static ByteBuf allocate(ByteBufAllocator alloc, int frameBytes) {
    ByteBuf out = alloc.buffer(CHUNK_HEAD_ROOM + frameBytes + 2);
    return out.writerIndex(CHUNK_HEAD_ROOM).readerIndex(CHUNK_HEAD_ROOM);
  }

  /**
   * Turns a frame from {@link #frame} into one HTTP/1.1 chunk ({@code <hex size>\r\n<frame>\r\n})
   * in the same buffer, to be written past the HTTP codec. The head room is used where the frame
   * has it; a frame without it (never the case for this class's own) is copied once.
   */
  static ByteBuf toHttpChunk(ByteBuf frame, ByteBufAllocator alloc) {
    int size = frame.readableBytes();
    int digits = Math.max(1, (32 - Integer.numberOfLeadingZeros(size) + 3) / 4);
    int head = digits + 2;
    ByteBuf out = frame;
    if (frame.readerIndex() < head) {
      out = alloc.buffer(head + size + 2).writerIndex(head).readerIndex(head);
      out.writeBytes(frame);
      frame.release();
    }
    int start = out.readerIndex() - head;
    for (int i = digits - 1, v = size; i >= 0; i--, v >>>= 4) {
      out.setByte(start + i, HEX[v & 0xF]);
    }
    out.setByte(start + digits, '\r').setByte(start + digits + 1, '\n');
    out.readerIndex(start);
    return out.writeByte('\r').writeByte('\n');
  }

  /** The frame as the tree path renders it: the reference the splice must match. */
  byte[] frameWithTree(ChunkView chunk) {
    JsonNode parsed = OpenAiChunks.parseOrNull(chunk.chunkJson());
    ObjectNode json = parsed instanceof ObjectNode ? (ObjectNode) parsed : synthesise(chunk);
    OpenAiChunks.stamp(json, route, start);
    if (!keepTokenIds) {
      removeTokenIds(json);
    }
    return frame(json);
  }

  static byte[] frame(JsonNode json) {
    byte[] body = Json.compactBytes(json);
    byte[] out = new byte[body.length + 8];
    System.arraycopy(DATA, 0, out, 0, 6);
    System.arraycopy(body, 0, out, 6, body.length);
    out[out.length - 2] = '\n';
    out[out.length - 1] = '\n';
    return out;
  }

  static byte[] done() {
    return DONE.clone();
  }

  // ----------------------------------------------------------- plain token path

  /**
   * A token without engine chunk JSON (dialects whose engines speak another format) and nothing
   * but text: the synthesised chunk is fixed apart from the choice index and the text, so it is
   * written from a per-response prefix and suffix around the escaped text.
   */
  private static boolean isPlainToken(ChunkView chunk) {
    return chunk.isToken() && chunk.finishReason() == null && chunk.role().isEmpty() && chunk.usage() == null
        && chunk.stopReasonJson().isEmpty() && !hasSurrogate(chunk.text());
  }

  private ByteBuf framePlainToken(ChunkView chunk, ByteBufAllocator alloc) {
    if (plainPrefix == null) {
      String object = OpenAiChunks.chunkObject(route);
      boolean chat = route == Route.ROUTE_CHAT_COMPLETIONS;
      plainPrefix = ("data: {\"object\":\"" + object + "\",\"choices\":[{\"index\":")
          .getBytes(StandardCharsets.US_ASCII);
      plainTextOpen = (chat ? ",\"delta\":{\"content\":\"" : ",\"text\":\"").getBytes(StandardCharsets.US_ASCII);
      String close = (chat ? "\"}" : "\"") + ",\"logprobs\":null,\"finish_reason\":null,\"stop_reason\":null}]"
          + (chat ? "" : ",\"usage\":null") + ",";
      plainSuffix = concat(close.getBytes(StandardCharsets.US_ASCII), idMember, COMMA, modelMember, COMMA,
          createdMember, END);
    }
    String text = chunk.text();
    ByteBuf out = allocate(alloc, plainPrefix.length + 11 + plainTextOpen.length + text.length() + 8 + plainSuffix.length);
    out.writeBytes(plainPrefix);
    ByteBufUtil.writeAscii(out, Integer.toString(chunk.index()));
    out.writeBytes(plainTextOpen);
    writeEscaped(out, text);
    out.writeBytes(plainSuffix);
    return out;
  }

  /** {@code text} as the inside of a JSON string, escaped as Jackson's byte writer escapes it. */
  private static void writeEscaped(ByteBuf out, String text) {
    int run = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c >= 0x20 && c != '"' && c != '\\') {
        continue;
      }
      ByteBufUtil.writeUtf8(out, text, run, i);
      out.writeByte('\\');
      switch (c) {
        case '"' -> out.writeByte('"');
        case '\\' -> out.writeByte('\\');
        case '\b' -> out.writeByte('b');
        case '\t' -> out.writeByte('t');
        case '\n' -> out.writeByte('n');
        case '\f' -> out.writeByte('f');
        case '\r' -> out.writeByte('r');
        default -> out.writeByte('u').writeByte('0').writeByte('0').writeByte(HEX[c >> 4]).writeByte(HEX[c & 0xF]);
      }
      run = i + 1;
    }
    ByteBufUtil.writeUtf8(out, text, run, text.length());
  }

  private static byte[] concat(byte[]... parts) {
    int n = 0;
    for (byte[] p : parts) {
      n += p.length;
    }
    byte[] out = new byte[n];
    int at = 0;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, out, at, p.length);
      at += p.length;
    }
    return out;
  }

  private static boolean hasSurrogate(String text) {
    for (int i = 0; i < text.length(); i++) {
      if (Character.isSurrogate(text.charAt(i))) {
        return true;
      }
    }
    return false;
  }

  // ---------------------------------------------------------------- splice path

  /**
   * The root object with id/model/created replaced in place (a tree's {@code put} keeps the
   * member's position) or appended, and token ids dropped from the root and from each object in
   * {@code choices}, as {@link #removeTokenIds} does.
   */
  private void writeStamped(CompactJson index, ByteBuf out) {
    boolean sawId = false;
    boolean sawModel = false;
    boolean sawCreated = false;
    boolean any = false;
    out.writeByte('{');
    for (int m = index.first(index.root()); m != CompactJson.NONE; m = index.next(m)) {
      byte[] stamped = null;
      if (index.keyIs(m, "id")) {
        stamped = idMember;
        sawId = true;
      } else if (index.keyIs(m, "model")) {
        stamped = modelMember;
        sawModel = true;
      } else if (index.keyIs(m, "created")) {
        stamped = createdMember;
        sawCreated = true;
      } else if (!keepTokenIds && index.keyIs(m, "prompt_token_ids")) {
        continue;
      }
      if (any) {
        out.writeByte(',');
      }
      any = true;
      if (stamped != null) {
        out.writeBytes(stamped);
      } else if (!keepTokenIds && index.kind(m) == CompactJson.ARRAY && index.keyIs(m, "choices")) {
        writeChoices(index, m, out);
      } else {
        writeSpan(index, out, index.keyStart(m), index.end(m));
      }
    }
    any = append(out, any, sawId, idMember);
    any = append(out, any, sawModel, modelMember);
    append(out, any, sawCreated, createdMember);
    out.writeByte('}');
  }

  private static boolean append(ByteBuf out, boolean any, boolean present, byte[] member) {
    if (present) {
      return any;
    }
    if (any) {
      out.writeByte(',');
    }
    out.writeBytes(member);
    return true;
  }

  private static void writeChoices(CompactJson index, int choices, ByteBuf out) {
    writeSpan(index, out, index.keyStart(choices), index.keyEnd(choices));
    out.writeByte(':').writeByte('[');
    for (int c = index.first(choices); c != CompactJson.NONE; c = index.next(c)) {
      if (c != index.first(choices)) {
        out.writeByte(',');
      }
      if (index.kind(c) != CompactJson.OBJECT) {
        writeSpan(index, out, index.start(c), index.end(c));
        continue;
      }
      out.writeByte('{');
      boolean any = false;
      for (int m = index.first(c); m != CompactJson.NONE; m = index.next(m)) {
        if (index.keyIs(m, "token_ids") || index.keyIs(m, "prompt_token_ids")) {
          continue;
        }
        if (any) {
          out.writeByte(',');
        }
        any = true;
        writeSpan(index, out, index.keyStart(m), index.end(m));
      }
      out.writeByte('}');
    }
    out.writeByte(']');
  }

  private static final byte[] HEX = "0123456789ABCDEF".getBytes(StandardCharsets.US_ASCII);

  /**
   * Copies {@code [from, to)} of the chunk as UTF-8, except that a surrogate pair becomes two
   * {@code \}{@code uXXXX} escapes, as Jackson's byte writer spells it (surrogates only ever
   * occur inside strings, so escaping them is always valid).
   */
  private static void writeSpan(CompactJson index, ByteBuf out, int from, int to) {
    String text = index.text();
    if (!index.hasSurrogates()) {
      ByteBufUtil.writeUtf8(out, text, from, to);
      return;
    }
    int run = from;
    for (int i = from; i < to; i++) {
      char c = text.charAt(i);
      if (Character.isSurrogate(c)) {
        ByteBufUtil.writeUtf8(out, text, run, i);
        out.writeByte('\\').writeByte('u')
            .writeByte(HEX[(c >> 12) & 0xF]).writeByte(HEX[(c >> 8) & 0xF])
            .writeByte(HEX[(c >> 4) & 0xF]).writeByte(HEX[c & 0xF]);
        run = i + 1;
      }
    }
    ByteBufUtil.writeUtf8(out, text, run, to);
  }

  // ----------------------------------------------------------------- tree path

  private ObjectNode synthesise(ChunkView chunk) {
    ObjectNode json = Json.mapper().createObjectNode();
    json.put("object", OpenAiChunks.chunkObject(route));
    ArrayNode choices = json.putArray("choices");
    boolean hasChoice =
        chunk.isToken() || chunk.finishReason() != null || !chunk.role().isEmpty();
    if (hasChoice) {
      ObjectNode choice = choices.addObject().put("index", chunk.index());
      if (route == Route.ROUTE_CHAT_COMPLETIONS) {
        ObjectNode delta = choice.putObject("delta");
        if (!chunk.role().isEmpty()) {
          delta.put("role", chunk.role());
        }
        if (chunk.isToken() || !chunk.role().isEmpty()) {
          delta.put("content", chunk.text());
        }
      } else {
        choice.put("text", chunk.text());
      }
      choice.putNull("logprobs");
      choice.put("finish_reason", chunk.finishReason());
      choice.set("stop_reason", OpenAiChunks.stopReason(chunk.stopReasonJson()));
    }
    if (chunk.usage() != null) {
      json.set("usage", OpenAiChunks.usage(chunk.usage()));
    } else if (route == Route.ROUTE_COMPLETIONS) {
      json.putNull("usage");
    }
    return json;
  }

  private static void removeTokenIds(ObjectNode json) {
    json.remove("prompt_token_ids");
    JsonNode choices = json.get("choices");
    if (choices != null && choices.isArray()) {
      for (JsonNode choice : choices) {
        if (choice instanceof ObjectNode) {
          ((ObjectNode) choice).remove("token_ids");
          ((ObjectNode) choice).remove("prompt_token_ids");
        }
      }
    }
  }
}

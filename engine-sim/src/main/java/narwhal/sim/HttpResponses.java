package narwhal.sim;

import com.fasterxml.jackson.databind.JsonNode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** Builders for the HTTP messages the engine writes; every buffer returned is owned by the caller. */
final class HttpResponses {
  /** What Starlette sends for {@code media_type="text/event-stream"}. */
  static final String EVENT_STREAM = "text/event-stream; charset=utf-8";

  private static final byte[] DATA_PREFIX = "data: ".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] EVENT_END = "\n\n".getBytes(StandardCharsets.US_ASCII);
  private static final String DONE_EVENT = "data: [DONE]\n\n";
  private static final String KEEP_ALIVE_COMMENT = ": keep-alive\n\n";

  private HttpResponses() {}

  static FullHttpResponse json(ByteBufAllocator alloc, int status, JsonNode body) {
    ByteBuf content = alloc.buffer(256);
    writeJson(content, body);
    return full(status, content, "application/json");
  }

  static FullHttpResponse text(ByteBufAllocator alloc, int status, String contentType, String body) {
    return full(status, ByteBufUtil.writeUtf8(alloc, body), contentType);
  }

  static FullHttpResponse empty(int status) {
    FullHttpResponse response =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status), Unpooled.EMPTY_BUFFER);
    HttpUtil.setContentLength(response, 0);
    return response;
  }

  /** Response headers of a chunked body whose end is not known yet. */
  static HttpResponse chunkedHead(String contentType) {
    HttpResponse response = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
    response.headers().set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
    return response;
  }

  /**
   * Response headers of a close-delimited body: no {@code Content-Length}, no {@code
   * Transfer-Encoding}, {@code Connection: close}; the body is every byte until the server closes
   * the connection. Netty's encoder passes the parts after such a head through unframed.
   */
  static HttpResponse closeDelimitedHead(String contentType) {
    HttpResponse response = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
    response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    return response;
  }

  /** One SSE event: {@code data: <json>\n\n}. */
  static ByteBuf sseEvent(ByteBufAllocator alloc, JsonNode body) {
    ByteBuf buf = alloc.buffer(256);
    buf.writeBytes(DATA_PREFIX);
    writeJson(buf, body);
    buf.writeBytes(EVENT_END);
    return buf;
  }

  /**
   * An SSE comment line, as proxies in front of vLLM send while it is silent: it completes no event
   * (a client ignores it) but shows the connection is alive.
   */
  static ByteBuf sseKeepAliveComment(ByteBufAllocator alloc) {
    return ByteBufUtil.writeAscii(alloc, KEEP_ALIVE_COMMENT);
  }

  static ByteBuf sseDone(ByteBufAllocator alloc) {
    return ByteBufUtil.writeAscii(alloc, DONE_EVENT);
  }

  private static FullHttpResponse full(int status, ByteBuf content, String contentType) {
    FullHttpResponse response =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status), content);
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
    HttpUtil.setContentLength(response, content.readableBytes());
    return response;
  }

  /** Serialises {@code body} into {@code buf}, releasing {@code buf} if that fails. */
  private static void writeJson(ByteBuf buf, JsonNode body) {
    try (OutputStream out = new ByteBufOutputStream(buf)) {
      SimJson.MAPPER.writeValue(out, body);
    } catch (IOException | RuntimeException e) {
      buf.release();
      if (e instanceof IOException) {
        throw new UncheckedIOException((IOException) e);
      }
      throw (RuntimeException) e;
    }
  }
}

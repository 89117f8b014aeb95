package narwhal.engine.http;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import narwhal.spi.EngineHttpRequest;

/**
 * A dialect's request as it goes on the wire to one engine: method, target and headers fixed when
 * the exchange opens, so an invalid method or header fails the caller's {@code open} call (as an
 * IllegalArgumentException) instead of surfacing later as a transport failure. Framing headers are
 * the transport's, whatever the dialect put in.
 */
record EngineRequestHead(HttpMethod method, String target, HttpHeaders headers, byte[] body) {

  private static final String ACCEPTED_TYPES = "application/json, text/event-stream";

  static EngineRequestHead of(EngineAddress engine, EngineHttpRequest request) {
    HttpMethod method = HttpMethod.valueOf(request.method());
    HttpHeaders headers = new DefaultHttpHeaders();
    headers.set(HttpHeaderNames.ACCEPT, ACCEPTED_TYPES);
    if (request.body().length > 0) {
      headers.set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
    }
    request.headers().forEach(headers::set);
    headers.set(HttpHeaderNames.HOST, engine.hostHeader());
    headers.remove(HttpHeaderNames.TRANSFER_ENCODING);
    headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
    if (request.body().length > 0 || expectsBody(method)) {
      headers.setInt(HttpHeaderNames.CONTENT_LENGTH, request.body().length);
    } else {
      headers.remove(HttpHeaderNames.CONTENT_LENGTH);
    }
    return new EngineRequestHead(method, engine.target(request.path()), headers, request.body());
  }

  /** A fresh Netty request for one write (the body is wrapped, not copied). */
  FullHttpRequest toNettyRequest() {
    return new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, method, target, Unpooled.wrappedBuffer(body), headers,
        EmptyHttpHeaders.INSTANCE);
  }

  private static boolean expectsBody(HttpMethod method) {
    return method.equals(HttpMethod.POST) || method.equals(HttpMethod.PUT) || method.equals(HttpMethod.PATCH);
  }
}

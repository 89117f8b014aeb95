package narwhal.sim;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * vLLM's {@code --api-key} check ({@link SimOptions#apiKey()}): requests under the OpenAI-style
 * prefixes must carry {@code Authorization: Bearer <key>}; anything else gets 401 with vLLM's
 * plain body {@code {"error":"Unauthorized"}} (not the usual error envelope). {@code /health},
 * {@code /metrics}, the attestation document, {@code /admin/} and the SGLang bootstrap endpoints
 * stay open, as vLLM leaves everything outside those prefixes open. Immutable.
 */
final class ApiKeyGuard {

  /** The path prefixes vLLM guards; the simulator serves only {@code /v1}. */
  private static final List<String> GUARDED = List.of("/v1", "/v2", "/inference", "/cohere");

  private final byte @Nullable [] key;

  ApiKeyGuard(@Nullable String key) {
    this.key = key == null ? null : key.getBytes(StandardCharsets.UTF_8);
  }

  /** True when the request may proceed: no key configured, an open path, or the right token. */
  boolean admits(HttpMethod method, String path, @Nullable String authorization) {
    if (key == null || method.equals(HttpMethod.OPTIONS) || !guarded(path)) {
      return true;
    }
    if (authorization == null) {
      return false;
    }
    int space = authorization.indexOf(' ');
    if (space < 0 || !authorization.substring(0, space).equalsIgnoreCase("bearer")) {
      return false;
    }
    byte[] token = authorization.substring(space + 1).getBytes(StandardCharsets.UTF_8);
    // Constant time, as vLLM compares digests: the sim is a test tool, but it models the engine.
    return MessageDigest.isEqual(token, key);
  }

  static boolean guarded(String path) {
    for (String prefix : GUARDED) {
      if (path.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }

  /** vLLM's 401: a bare string under {@code error}, not an ErrorInfo object. */
  static FullHttpResponse unauthorized(ByteBufAllocator alloc) {
    ObjectNode body = SimJson.object();
    body.put("error", "Unauthorized");
    return HttpResponses.json(alloc, 401, body);
  }
}

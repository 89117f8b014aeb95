package narwhal.core.trace;

import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;

/**
 * A W3C Trace Context {@code traceparent}: {@code version-traceid-parentid-flags}, read strictly
 * (lowercase hex, all-zero ids invalid, version {@code ff} invalid, version {@code 00} exactly 55
 * characters; a later version may append {@code -...}, which is dropped). What the router sends is
 * always version {@code 00}.
 *
 * @param traceId 32 lowercase hex digits, not all zero
 * @param parentId 16 lowercase hex digits, not all zero
 * @param flags 2 lowercase hex digits
 */
public record TraceParent(String traceId, String parentId, String flags) {

  private static final int LENGTH = 55;
  /** A trace the router starts is sampled, so engines that trace record their part of it. */
  static final String SAMPLED = "01";

  /** The client's header, or null when it is absent or not valid (then a new trace is started). */
  public static @Nullable TraceParent parse(@Nullable String header) {
    if (header == null || header.length() < LENGTH) {
      return null;
    }
    String version = header.substring(0, 2);
    if (!isHex(version) || version.equals("ff")) {
      return null;
    }
    if (version.equals("00") ? header.length() != LENGTH : header.length() > LENGTH && header.charAt(LENGTH) != '-') {
      return null;
    }
    if (header.charAt(2) != '-' || header.charAt(35) != '-' || header.charAt(52) != '-') {
      return null;
    }
    String traceId = header.substring(3, 35);
    String parentId = header.substring(36, 52);
    String flags = header.substring(53, 55);
    if (!isHex(traceId) || !isHex(parentId) || !isHex(flags) || isZero(traceId) || isZero(parentId)) {
      return null;
    }
    return new TraceParent(traceId, parentId, flags);
  }

  /** A new trace: random ids, sampled. */
  static TraceParent start() {
    return new TraceParent(randomHex(16), randomSpanId(), SAMPLED);
  }

  /** The same trace, its parent now {@code spanId} (the span of the leg that sends it). */
  TraceParent withParent(String spanId) {
    return new TraceParent(traceId, spanId, flags);
  }

  public String header() {
    return "00-" + traceId + "-" + parentId + "-" + flags;
  }

  static String randomSpanId() {
    return randomHex(8);
  }

  private static String randomHex(int bytes) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    StringBuilder sb = new StringBuilder(bytes * 2);
    while (sb.length() < bytes * 2) {
      // Never all zero: zero ids are invalid; the first byte is drawn from 1..255 to rule that out.
      int b = sb.length() == 0 ? 1 + random.nextInt(255) : random.nextInt(256);
      sb.append(Character.forDigit(b >> 4, 16)).append(Character.forDigit(b & 0xf, 16));
    }
    return sb.toString();
  }

  private static boolean isHex(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
        return false;
      }
    }
    return true;
  }

  private static boolean isZero(String s) {
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) != '0') {
        return false;
      }
    }
    return true;
  }
}

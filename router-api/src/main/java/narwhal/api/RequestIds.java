package narwhal.api;

import java.security.SecureRandom;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Fresh ids for requests and their engine legs: 122 random bits laid out as a version-4 UUID.
 *
 * <p>Why not {@link UUID#randomUUID()}: it draws from the platform's {@code SecureRandom}, which on
 * Linux ({@code NativePRNG}) mixes a SHA1PRNG step into every draw under a lock and rereads
 * {@code /dev/urandom} whenever its buffer is older than 100 ms, that is on every request at low
 * load. A request took three such draws (its id, the prefill leg's, the decode leg's) on the way to
 * its first token: about a tenth of everything the router did for a request at one stream, measured
 * with {@code perf} on the router's CPU (bench/results/20261203-101226/notes.md, "One stream, hop by hop"). These ids only
 * correlate a request's response, journal row, log lines and engine legs; nothing trusts them as
 * secrets, so the calling thread's {@link ThreadLocalRandom} is enough. Each process also folds in
 * 128 bits drawn once from {@code SecureRandom}, so two routers whose thread seeds happened to
 * coincide still hand out different ids.
 */
public final class RequestIds {

  private static final char[] HEX = "0123456789abcdef".toCharArray();
  private static final long PROCESS_HIGH;
  private static final long PROCESS_LOW;

  static {
    SecureRandom seed = new SecureRandom();
    PROCESS_HIGH = seed.nextLong();
    PROCESS_LOW = seed.nextLong();
  }

  private RequestIds() {}

  /** A new id as a UUID in its usual 8-4-4-4-12 spelling. */
  public static String uuid() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    return new UUID(high(random), low(random)).toString();
  }

  /** A new id as 32 lowercase hex digits (a UUID without its dashes). */
  public static String hex32() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    char[] out = new char[32];
    writeHex(high(random), out, 0);
    writeHex(low(random), out, 16);
    return new String(out);
  }

  /** The most significant half with the version nibble set to 4 (random). */
  private static long high(ThreadLocalRandom random) {
    return (random.nextLong() ^ PROCESS_HIGH) & ~0xF000L | 0x4000L;
  }

  /** The least significant half with the IETF variant bits (10). */
  private static long low(ThreadLocalRandom random) {
    return (random.nextLong() ^ PROCESS_LOW) & 0x3FFF_FFFF_FFFF_FFFFL | 0x8000_0000_0000_0000L;
  }

  private static void writeHex(long value, char[] out, int at) {
    for (int i = 15; i >= 0; i--) {
      out[at + i] = HEX[(int) (value & 0xF)];
      value >>>= 4;
    }
  }
}

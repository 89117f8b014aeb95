package narwhal.kvindex;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The decoder under hostile bytes: every fixture mutated at random (bytes flipped, cut short,
 * spliced, lengths inflated) and random garbage. Whatever comes in, the decoder returns a batch or
 * throws {@link MalformedEventsException}, never anything else, and never takes long (a length
 * prefix cannot make it allocate what the payload does not hold). Seeded: the seed is printed and
 * {@code -Dnarwhal.fuzz.seed=N} replays a run.
 */
class EventBatchDecoderFuzzTest {

  private static final String[] FIXTURES = {
    EventBatchDecoderTest.ARRAY_STORED, EventBatchDecoderTest.ARRAY_CHILD_REMOVED_CLEARED,
    EventBatchDecoderTest.ARRAY_OLDEST, EventBatchDecoderTest.MAP_STORED,
    EventBatchDecoderTest.MAP_REMOVED_UNKNOWN_CLEARED, EventBatchDecoderTest.MAP_BYTES_SALTED,
  };

  @Test
  void mutatedAndRandomPayloads_decodeOrFailCleanly() {
    long seed = Long.getLong("narwhal.fuzz.seed", System.nanoTime());
    System.out.println("EventBatchDecoderFuzzTest seed " + seed + " (replay with -Dnarwhal.fuzz.seed=" + seed + ")");
    SplittableRandom random = new SplittableRandom(seed);
    int decoded = 0;
    int refused = 0;
    long started = System.nanoTime();
    for (int i = 0; i < 50_000; i++) {
      byte[] input = random.nextInt(10) == 0 ? garbage(random) : mutate(random,
          EventBatchDecoderTest.bytes(FIXTURES[random.nextInt(FIXTURES.length)]));
      try {
        EventBatch batch = EventBatchDecoder.decode(input);
        assertThat(batch.events()).as("seed %d case %d", seed, i).isNotNull();
        decoded++;
      } catch (MalformedEventsException expected) {
        refused++;
      } catch (RuntimeException | Error e) {
        throw new AssertionError("seed " + seed + " case " + i + ": " + java.util.HexFormat.of().formatHex(input), e);
      }
    }
    assertThat(decoded).as("some mutations still decode (seed %d)", seed).isPositive();
    assertThat(refused).as("most are refused (seed %d)", seed).isPositive();
    assertThat(System.nanoTime() - started).as("50,000 payloads decode quickly").isLessThan(60_000_000_000L);
  }

  private static byte[] garbage(SplittableRandom random) {
    byte[] b = new byte[random.nextInt(64)];
    random.nextBytes(b);
    return b;
  }

  private static byte[] mutate(SplittableRandom random, byte[] in) {
    byte[] b = in.clone();
    switch (random.nextInt(5)) {
      case 0 -> {
        for (int k = 0; k < 1 + random.nextInt(4); k++) {
          b[random.nextInt(b.length)] = (byte) random.nextInt(256);
        }
      }
      case 1 -> b = java.util.Arrays.copyOf(b, random.nextInt(b.length));
      case 2 -> {
        // A length prefix pushed to its largest: array32/map32/str32/bin32 with 0xffffffff.
        int at = random.nextInt(b.length);
        byte[] big = {(byte) (0xdc + random.nextInt(2) * 0), (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff};
        big[0] = (byte) new int[] {0xdd, 0xdf, 0xdb, 0xc6}[random.nextInt(4)];
        byte[] out = new byte[b.length + big.length];
        System.arraycopy(b, 0, out, 0, at);
        System.arraycopy(big, 0, out, at, big.length);
        System.arraycopy(b, at, out, at + big.length, b.length - at);
        b = out;
      }
      case 3 -> {
        // A slice of the payload repeated: nesting and counts that no longer match.
        int from = random.nextInt(b.length);
        int to = from + random.nextInt(b.length - from);
        byte[] out = new byte[b.length + (to - from)];
        System.arraycopy(b, 0, out, 0, to);
        System.arraycopy(b, from, out, to, b.length - from);
        b = out;
      }
      default -> b[random.nextInt(b.length)] ^= (byte) (1 << random.nextInt(8));
    }
    return b;
  }
}

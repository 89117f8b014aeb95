package narwhal.engine.http;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.junit.jupiter.api.Test;

class BoundedBodyTest {

  private static boolean append(BoundedBody body, byte[] bytes) {
    ByteBuf buf = ByteBufAllocator.DEFAULT.buffer(bytes.length).writeBytes(bytes);
    try {
      return body.append(buf);
    } finally {
      assertThat(buf.readerIndex()).isZero();
      buf.release();
    }
  }

  @Test
  void piecesUpToTheLimit_areJoined_evenWhenTheySplitACharacter() {
    byte[] text = "h\u00e9llo".getBytes(UTF_8); // 6 bytes, é spans indices 1-2
    BoundedBody body = new BoundedBody(6);

    assertThat(append(body, new byte[] {text[0], text[1]})).isTrue();
    assertThat(append(body, new byte[] {text[2], text[3], text[4], text[5]})).isTrue();

    assertThat(body.utf8()).isEqualTo("h\u00e9llo");
  }

  @Test
  void pieceThatWouldPassTheLimit_isRejectedWhole() {
    BoundedBody body = new BoundedBody(5);

    assertThat(append(body, "abc".getBytes(UTF_8))).isTrue();
    assertThat(append(body, "def".getBytes(UTF_8))).isFalse();

    assertThat(body.utf8()).isEqualTo("abc");
  }

  @Test
  void largeBody_growsAsNeeded() {
    BoundedBody body = new BoundedBody(1 << 20);
    String chunk = "z".repeat(3000);
    for (int i = 0; i < 100; i++) {
      assertThat(append(body, chunk.getBytes(UTF_8))).isTrue();
    }
    assertThat(body.utf8()).hasSize(300_000);
  }
}

package narwhal.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.nio.charset.StandardCharsets;
import narwhal.api.ResponseStart;
import narwhal.proto.v1.Route;
import narwhal.proto.v1.TokenDelta;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A relayed frame becomes one HTTP/1.1 chunk in its own buffer: exact size line, frame, CRLF. */
class HttpChunkFramingTest {

  private static final UnpooledByteBufAllocator ALLOC = new UnpooledByteBufAllocator(false);

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 9, 15, 16, 255, 256, 4095, 4096, 65_535, 65_536, 1_000_000})
  void sizeLine_isTheFramesLengthInHex_withoutPadding(int size) {
    ByteBuf frame = ALLOC.buffer(8 + size + 2).writerIndex(8).readerIndex(8);
    frame.writeZero(size);
    ByteBuf chunk = SseChunkWriter.toHttpChunk(frame, ALLOC);
    try {
      String hex = Integer.toHexString(size).toUpperCase();
      assertThat(chunk.toString(chunk.readerIndex(), hex.length() + 2, StandardCharsets.US_ASCII))
          .isEqualTo(hex + "\r\n");
      assertThat(chunk.readableBytes()).isEqualTo(hex.length() + 2 + size + 2);
      assertThat(chunk.getByte(chunk.writerIndex() - 2)).isEqualTo((byte) '\r');
      assertThat(chunk.getByte(chunk.writerIndex() - 1)).isEqualTo((byte) '\n');
    } finally {
      chunk.release();
    }
  }

  @Test
  void writersFrame_isFramedInPlace() {
    SseChunkWriter writer =
        new SseChunkWriter(Route.ROUTE_COMPLETIONS, new ResponseStart("rid-1", "m", 1L), false);
    String chunkJson = "{\"id\":\"x\",\"object\":\"text_completion\",\"created\":5,\"model\":\"e\","
        + "\"choices\":[{\"index\":0,\"text\":\" hi\",\"token_ids\":[1]}]}";
    ByteBuf frame = writer.frame(ChunkView.of(narwhal.proto.v1.StreamEvent.newBuilder()
        .setToken(TokenDelta.newBuilder().setText(" hi").setChunkJson(chunkJson)).build()), ALLOC);
    String sse = frame.toString(StandardCharsets.UTF_8);
    ByteBuf chunk = SseChunkWriter.toHttpChunk(frame, ALLOC);
    try {
      assertThat(chunk).isSameAs(frame);
      assertThat(chunk.toString(StandardCharsets.UTF_8))
          .isEqualTo(Integer.toHexString(sse.getBytes(StandardCharsets.UTF_8).length).toUpperCase() + "\r\n" + sse
              + "\r\n");
    } finally {
      chunk.release();
    }
  }

  @Test
  void frameWithoutHeadRoom_isCopiedOnce_andTheOriginalReleased() {
    ByteBuf frame = Unpooled.copiedBuffer("data: {}\n\n", StandardCharsets.US_ASCII);
    ByteBuf chunk = SseChunkWriter.toHttpChunk(frame, ALLOC);
    try {
      assertThat(frame.refCnt()).isZero();
      assertThat(chunk.toString(StandardCharsets.US_ASCII)).isEqualTo("A\r\ndata: {}\n\n\r\n");
    } finally {
      chunk.release();
    }
  }
}

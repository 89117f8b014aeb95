package narwhal.sim;

import io.netty.channel.ChannelFuture;

/**
 * Told by a {@link Generation} when its response's last byte has been handed to the channel, and
 * whether the connection stays open for the next request (false: close it once that write is done).
 */
interface ResponseCompletion {
  void responseComplete(ChannelFuture lastWrite, boolean keepAlive);
}

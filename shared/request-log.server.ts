import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * Fastify's request log lines without query strings: signed upload URLs and one-time links carry
 * secrets there. Used by the back office and the reference API alike.
 */
export class PathOnlyLogController extends LogController {
  override incomingRequest(request: FastifyRequest, reply: FastifyReply) {
    if (this.isLogDisabled(request)) return;
    void reply;
    request.log.info({ method: request.method, path: request.url.split('?')[0] }, 'incoming request');
  }
}

import { describe, expect, it } from 'vitest';
import { signStandardWebhook } from './standard-webhooks';

describe('Standard Webhooks signatures', () => {
  it('matches the specification’s published test vector', () => {
    const headers = signStandardWebhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}');
    expect(headers).toEqual({
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    });
  });

  it('signs the id, the time and the body: changing any changes the signature', () => {
    const base = signStandardWebhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_1', 1614265330, '{}')['webhook-signature'];
    expect(signStandardWebhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_2', 1614265330, '{}')['webhook-signature']).not.toBe(base);
    expect(signStandardWebhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_1', 1614265331, '{}')['webhook-signature']).not.toBe(base);
    expect(signStandardWebhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_1', 1614265330, '{ }')['webhook-signature']).not.toBe(base);
  });
});

import { Injectable, Param, Resource } from '@gantry/core';
import { GreetingService } from './greeting.service';

@Injectable()
export class GreeterResource {
  constructor(private readonly greetings: GreetingService) {}

  // A URI template: reading greeting://Ada calls this method with name = 'Ada'.
  @Resource({ uri: 'greeting://{name}', mimeType: 'text/plain', description: 'A greeting for someone' })
  greeting(@Param('name') name: string): string {
    return this.greetings.greet(name);
  }
}

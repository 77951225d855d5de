import { installSpeedGuard } from './speed-guard';

installSpeedGuard('unit');

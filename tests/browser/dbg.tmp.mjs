import { startServer, launchBrowser, registerAndLogin } from './helpers.js';
const s = await startServer();
const b = await launchBrowser({viewport:{width:390,height:844}});
await registerAndLogin(b.page, s.base);
for (const r of ['chat','interview','tts','agents','admin']) {
  await b.page.goto(s.base + '/#/' + r); await b.page.waitForTimeout(800);
  const res = await b.page.evaluate(() => { const w = document.documentElement.clientWidth; return [document.documentElement.scrollWidth - w, [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > w+1).slice(0,5).map(e => e.tagName+'.'+e.className+'#'+e.id+':'+Math.round(e.getBoundingClientRect().right))]; });
  console.log(r, JSON.stringify(res));
  await b.page.screenshot({path:`/tmp/phone-${r}.png`});
}
await b.close(); await s.stop();

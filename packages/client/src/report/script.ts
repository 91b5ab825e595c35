/**
 * The pages' only script: expand and collapse the call tree; build a large session's call tables from its data when
 * opened (the same table the page writes for a small one); open and build everything before printing (a printed
 * report shows everything). Text goes in through textContent, never as markup.
 */
export const SCRIPT = `
(function(){
  var data=new WeakMap();
  function tablesOf(section){
    if(!data.has(section)){var s=section.querySelector('script.lazy-tables');data.set(section,s?JSON.parse(s.textContent):[]);}
    return data.get(section);
  }
  function el(tag,text,cls){var e=document.createElement(tag);if(text!==undefined)e.textContent=text;if(cls)e.className=cls;return e;}
  function build(d){
    if(!d.hasAttribute('data-table')||d.querySelector('table'))return;
    var t=tablesOf(d.closest('section.session'))[Number(d.getAttribute('data-table'))];
    var table=el('table');table.appendChild(el('caption',t[0]));
    var head=el('tr');['Metric','Value','Unit','Reasoning','Judge'].forEach(function(h){var th=el('th',h);th.scope='col';head.appendChild(th);});
    table.appendChild(el('thead')).appendChild(head);
    var body=table.appendChild(el('tbody'));
    t[1].forEach(function(r){
      var tr=el('tr');tr.setAttribute('data-metric',r[0]);tr.setAttribute('data-level',r[1]);tr.setAttribute('data-measures',r[2]);
      var th=el('th',r[0]);th.scope='row';tr.appendChild(th);
      var v=el('td',r[4],'num');v.setAttribute('data-value',String(r[3]));tr.appendChild(v);
      tr.appendChild(el('td',r[5]));tr.appendChild(el('td',r[6]));tr.appendChild(el('td',r[7],r[7]==='—'?'muted':''));
      body.appendChild(tr);
    });
    d.appendChild(table);
  }
  document.addEventListener('toggle',function(e){if(e.target.open&&e.target.matches('details.metrics'))build(e.target);},true);
  document.addEventListener('click',function(e){
    var b=e.target.closest&&e.target.closest('button[data-tree]');
    if(!b)return;
    b.closest('section.session').querySelectorAll('details.call').forEach(function(d){d.open=b.getAttribute('data-tree')==='expand';});
  });
  window.addEventListener('beforeprint',function(){
    document.querySelectorAll('details.metrics').forEach(build);
    document.querySelectorAll('details').forEach(function(d){d.open=true;});
  });
})();
`;
